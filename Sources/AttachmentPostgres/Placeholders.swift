/// Rewrites the store's `?` placeholders as PostgreSQL's `$1…$n`.
enum Placeholders {
    /// `sql` with every `?` outside string literals (`'…'`, `E'…'`), quoted identifiers
    /// (`"…"`), dollar-quoted strings (`$tag$…$tag$`) and comments (`-- …`, nested `/* … */`)
    /// replaced by `$1`, `$2`, … in order, and how many there were.
    static func translate(_ sql: String) -> (sql: String, count: Int) {
        let scalars = Array(sql.unicodeScalars)
        var output = String.UnicodeScalarView()
        output.reserveCapacity(scalars.count + 8)
        var count = 0
        var index = 0

        func isIdentifierScalar(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "_" || scalar == "$" || scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
        }
        /// Copies scalars up to and including the first occurrence of `terminator` (or the end).
        func copy(through terminator: [Unicode.Scalar], from start: Int, backslashEscapes: Bool = false) -> Int {
            var position = start
            while position < scalars.count {
                if backslashEscapes, scalars[position] == "\\", position + 1 < scalars.count {
                    output.append(scalars[position]); output.append(scalars[position + 1])
                    position += 2
                    continue
                }
                if position + terminator.count <= scalars.count, Array(scalars[position..<position + terminator.count]) == terminator {
                    output.append(contentsOf: terminator)
                    return position + terminator.count
                }
                output.append(scalars[position])
                position += 1
            }
            return position
        }

        while index < scalars.count {
            let scalar = scalars[index]
            let previous: Unicode.Scalar? = index > 0 ? scalars[index - 1] : nil
            switch scalar {
            case "?":
                count += 1
                output.append(contentsOf: "$\(count)".unicodeScalars)
                index += 1
            case "'":
                // E'…' takes backslash escapes; '' inside either kind is a quote and is copied as
                // two one-quote literals back to back, which this loop handles naturally.
                let escaped = previous.map { ($0 == "E" || $0 == "e") && (index < 2 || !isIdentifierScalar(scalars[index - 2])) } ?? false
                output.append(scalar)
                index = copy(through: ["'"], from: index + 1, backslashEscapes: escaped)
            case "\"":
                output.append(scalar)
                index = copy(through: ["\""], from: index + 1)
            case "-" where index + 1 < scalars.count && scalars[index + 1] == "-":
                index = copy(through: ["\n"], from: index)
            case "/" where index + 1 < scalars.count && scalars[index + 1] == "*":
                // Block comments nest in PostgreSQL.
                var depth = 0
                while index < scalars.count {
                    if scalars[index] == "/", index + 1 < scalars.count, scalars[index + 1] == "*" {
                        depth += 1
                        output.append("/"); output.append("*"); index += 2
                    } else if scalars[index] == "*", index + 1 < scalars.count, scalars[index + 1] == "/" {
                        depth -= 1
                        output.append("*"); output.append("/"); index += 2
                        if depth == 0 { break }
                    } else {
                        output.append(scalars[index]); index += 1
                    }
                }
            case "$" where previous.map({ !isIdentifierScalar($0) }) ?? true:
                // A dollar quote: $$ or $tag$ where tag does not start with a digit ($1 is a parameter).
                var end = index + 1
                if end < scalars.count, scalars[end] != "$", scalars[end] == "_" || scalars[end].properties.isAlphabetic {
                    while end < scalars.count, scalars[end] != "$", isIdentifierScalar(scalars[end]) { end += 1 }
                }
                if end < scalars.count, scalars[end] == "$" {
                    let tag = Array(scalars[index...end])
                    output.append(contentsOf: tag)
                    index = copy(through: tag, from: end + 1)
                } else {
                    output.append(scalar)
                    index += 1
                }
            default:
                output.append(scalar)
                index += 1
            }
        }
        return (String(output), count)
    }
}
