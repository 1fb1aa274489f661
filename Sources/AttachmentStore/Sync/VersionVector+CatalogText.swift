import Foundation

/// A version vector as the catalog's `versions` column holds it: a JSON object of
/// `peer id: clock stamp`, keys sorted, as `JSONEncoder` with `.sortedKeys` writes it.
///
/// Every note read from the catalog reads this column, so it is written and read by hand in the
/// plain case — keys and stamps without a quote, a backslash, a slash or a control character,
/// which is what validated peer ids and stamps are — and through Foundation's coders only
/// otherwise. `JSONDecoder` per row had taken a fifth of a server's time answering a page of
/// notes (`perf record`, 2026-11-28).
extension VersionVector {
    /// The JSON text stored in the catalog: `{}` when empty, keys sorted (byte by byte).
    var json: String {
        if stamps.isEmpty { return "{}" }
        let sorted = stamps.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        guard sorted.allSatisfy({ Self.isPlain($0.key) && Self.isPlain($0.value.rawValue) }) else {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        }
        var text = "{"
        for (index, entry) in sorted.enumerated() {
            if index > 0 { text += "," }
            text += "\"" + entry.key + "\":\"" + entry.value.rawValue + "\""
        }
        return text + "}"
    }

    /// Reads the catalog's JSON text.
    /// - Throws: `DecodingError` when it is not a JSON object of strings.
    init(json: String) throws {
        if json == "{}" || json.isEmpty {
            self.init()
        } else if let pairs = Self.plainObject(json) {
            // As decoding does: each stamp under its key, with no check that it names that peer.
            self.init()
            for (peer, stamp) in pairs { stamps[peer] = stamp }
        } else {
            self = try JSONDecoder().decode(VersionVector.self, from: Data(json.utf8))
        }
    }

    /// Whether `text` needs no escaping in JSON and none of the escapes `JSONEncoder` adds
    /// (it writes `/` as `\/`).
    private static func isPlain(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") && $0 != UInt8(ascii: "/") }
    }

    /// The pairs of `{"key":"value",…}` written without spaces or escapes, exactly as ``json``
    /// writes a plain vector; `nil` for any other text (it is left to `JSONDecoder`), a key
    /// given twice included.
    static func plainObject(_ text: String) -> [(peer: String, stamp: ClockStamp)]? {
        let bytes = Array(text.utf8)
        var index = 0
        func expect(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        func string() -> String? {
            guard expect(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                guard bytes[index] >= 0x20, bytes[index] != UInt8(ascii: "\\") else { return nil }
                index += 1
            }
            let value = String(decoding: bytes[start..<index], as: UTF8.self)
            return expect(UInt8(ascii: "\"")) ? value : nil
        }
        guard expect(UInt8(ascii: "{")) else { return nil }
        var pairs: [(peer: String, stamp: ClockStamp)] = []
        var seen = Set<String>()
        repeat {
            guard let key = string(), expect(UInt8(ascii: ":")), let value = string(), seen.insert(key).inserted else { return nil }
            pairs.append((key, ClockStamp(rawValue: value)))
        } while expect(UInt8(ascii: ","))
        guard expect(UInt8(ascii: "}")), index == bytes.count else { return nil }
        return pairs
    }
}
