/// A recording time from a video's tags, in the form ``CaptureFacts/capturedAt`` uses.
enum CaptureTime {
    /// `2024-05-01T12:20:30+02:00` from QuickTime's `2024-05-01T12:20:30+0200` or a container's
    /// UTC `2024-05-01T10:20:30.000000Z` (`+00:00`); `nil` for anything else.
    static func normalized(_ tag: String) -> String? {
        let characters = Array(tag.utf8.prefix(40))
        guard characters.count >= 19 else { return nil }
        let digitPositions = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
        guard digitPositions.allSatisfy({ (48...57).contains(characters[$0]) }),
              characters[4] == UInt8(ascii: "-"), characters[7] == UInt8(ascii: "-"),
              characters[10] == UInt8(ascii: "T") || characters[10] == UInt8(ascii: " "),
              characters[13] == UInt8(ascii: ":"), characters[16] == UInt8(ascii: ":") else { return nil }
        func number(_ range: Range<Int>) -> Int { characters[range].reduce(0) { $0 * 10 + Int($1 - 48) } }
        guard (1...12).contains(number(5..<7)), (1...31).contains(number(8..<10)), number(11..<13) < 24,
              number(14..<16) < 60, number(17..<19) < 61 else { return nil }
        let time = String(decoding: characters[0..<10], as: UTF8.self) + "T" + String(decoding: characters[11..<19], as: UTF8.self)
        var rest = characters[19...]
        if rest.first == UInt8(ascii: ".") { rest = rest.dropFirst().drop { (48...57).contains($0) } }
        if rest.elementsEqual("Z".utf8) { return time + "+00:00" }
        let zone = Array(rest)
        guard zone.count == 5 || (zone.count == 6 && zone[3] == UInt8(ascii: ":")),
              zone[0] == UInt8(ascii: "+") || zone[0] == UInt8(ascii: "-") else { return nil }
        let digits = zone.dropFirst().filter { $0 != UInt8(ascii: ":") }
        guard digits.count == 4, digits.allSatisfy({ (48...57).contains($0) }) else { return nil }
        let hours = String(decoding: digits.prefix(2), as: UTF8.self), minutes = String(decoding: digits.suffix(2), as: UTF8.self)
        guard let h = Int(hours), let m = Int(minutes), h <= 14, m < 60 else { return nil }
        return time + String(UnicodeScalar(zone[0])) + hours + ":" + minutes
    }
}
