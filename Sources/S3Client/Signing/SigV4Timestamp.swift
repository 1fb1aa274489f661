import Crypto
import Foundation

/// A signing time in the two UTC forms SigV4 uses: `20130524T000000Z` and `20130524`.
struct SigV4Timestamp: Sendable, Equatable {
    /// `YYYYMMDD'T'HHMMSS'Z'`, the `x-amz-date` header.
    let dateTime: String
    /// `YYYYMMDD`, the date of the credential scope.
    let date: String

    init(_ instant: Date) {
        var seconds = time_t(instant.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let date = String(format: "%04d%02d%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
        self.date = date
        self.dateTime = date + String(format: "T%02d%02d%02dZ", Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}

extension Sequence where Element == UInt8 {
    /// The bytes as lower-case hex.
    var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
