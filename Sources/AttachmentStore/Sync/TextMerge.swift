/// A three-way merge of text by lines: what two versions changed in a common base, each taken
/// where only one changed it, once where both made the same change, and both where both inserted
/// lines at the same place. Where both changed the same lines differently, the newer version's
/// lines are kept and the merge reports a conflict (the caller keeps the older version whole).
///
/// The result depends only on the three texts and which version is newer, never on which of them
/// is local, so every peer that merges the same two versions writes the same text.
enum TextMerge {
    /// A merge's text, and whether two changes overlapped.
    struct Outcome: Equatable {
        var text: String
        var conflicted: Bool
    }

    /// Merges `older` and `newer`, two versions made from `base`.
    static func merge(base: String, older: String, newer: String) -> Outcome {
        if older == newer || base == older { return Outcome(text: newer, conflicted: false) }
        if base == newer { return Outcome(text: older, conflicted: false) }
        let (baseLines, olderLines, newerLines) = (lines(base), lines(older), lines(newer))
        let olderMatch = LineMatch(baseLines, olderLines)
        let newerMatch = LineMatch(baseLines, newerLines)
        var merged: [Substring] = []
        var conflicted = false
        var (b, o, n) = (0, 0, 0)
        while true {
            // The next base line both versions kept: everything before it is one chunk.
            var stable = b
            while stable < baseLines.count && (olderMatch.other[stable] == nil || newerMatch.other[stable] == nil) { stable += 1 }
            let (oEnd, nEnd) = stable < baseLines.count
                ? (olderMatch.other[stable]!, newerMatch.other[stable]!)
                : (olderLines.count, newerLines.count)
            let baseChunk = baseLines[b..<stable], olderChunk = olderLines[o..<oEnd], newerChunk = newerLines[n..<nEnd]
            if olderChunk.elementsEqual(baseChunk) {
                merged += newerChunk
            } else if newerChunk.elementsEqual(baseChunk) || olderChunk.elementsEqual(newerChunk) {
                merged += olderChunk
            } else if baseChunk.isEmpty {
                merged += olderChunk  // both inserted here: keep both, the older first
                merged += newerChunk
            } else {
                merged += newerChunk
                conflicted = true
            }
            guard stable < baseLines.count else { break }
            merged.append(baseLines[stable])
            (b, o, n) = (stable + 1, oEnd + 1, nEnd + 1)
        }
        return Outcome(text: merged.joined(separator: "\n"), conflicted: conflicted)
    }

    private static func lines(_ text: String) -> [Substring] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
    }
}

/// Which line of `other` each line of `base` is matched with in a longest common subsequence of
/// the two (`nil`: removed or changed), found after trimming the common start and end; a middle
/// too large for the quadratic table (over a million line pairs) matches nothing, which merges
/// it as one changed block.
struct LineMatch {
    /// For each line of the base, the index of its line in the other text.
    let other: [Int?]

    init(_ base: [Substring], _ other: [Substring]) {
        var matched = [Int?](repeating: nil, count: base.count)
        var start = 0
        while start < base.count && start < other.count && base[start] == other[start] {
            matched[start] = start
            start += 1
        }
        var (baseEnd, otherEnd) = (base.count, other.count)
        while baseEnd > start && otherEnd > start && base[baseEnd - 1] == other[otherEnd - 1] {
            baseEnd -= 1
            otherEnd -= 1
            matched[baseEnd] = otherEnd
        }
        let (rows, columns) = (baseEnd - start, otherEnd - start)
        if rows > 0 && columns > 0 && rows * columns <= 1_000_000 {
            // lengths[i][j]: the longest common subsequence of base[start+i...] and other[start+j...].
            var lengths = [Int32](repeating: 0, count: (rows + 1) * (columns + 1))
            let width = columns + 1
            for i in stride(from: rows - 1, through: 0, by: -1) {
                for j in stride(from: columns - 1, through: 0, by: -1) {
                    lengths[i * width + j] = base[start + i] == other[start + j]
                        ? lengths[(i + 1) * width + j + 1] + 1
                        : max(lengths[(i + 1) * width + j], lengths[i * width + j + 1])
                }
            }
            var (i, j) = (0, 0)
            while i < rows && j < columns {
                if base[start + i] == other[start + j] {
                    matched[start + i] = start + j
                    i += 1
                    j += 1
                } else if lengths[(i + 1) * width + j] >= lengths[i * width + j + 1] {
                    i += 1
                } else {
                    j += 1
                }
            }
        }
        self.other = matched
    }
}
