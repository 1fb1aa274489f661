/// Percent-encoding as SigV4 requires it for S3: every byte of the UTF-8 form except the
/// unreserved `A–Z a–z 0–9 - _ . ~` becomes `%XX` (upper-case hex).
///
/// Object keys keep `/` (it separates path segments and S3 does not encode it in the
/// canonical URI); query names and values encode it. S3 paths are encoded once, never twice.
public enum S3URIEncoding {
    /// `value` encoded for a URI path (`keepSlash: true`) or a query component.
    public static func encode(_ value: String, keepSlash: Bool) -> String {
        var encoded = ""
        encoded.reserveCapacity(value.utf8.count)
        for byte in value.utf8 {
            if isUnreserved(byte) || (keepSlash && byte == UInt8(ascii: "/")) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%"
                encoded.unicodeScalars.append(hexDigit(byte >> 4))
                encoded.unicodeScalars.append(hexDigit(byte & 0x0F))
            }
        }
        return encoded
    }

    /// The canonical query string: names and values encoded, pairs sorted by name then
    /// value, joined with `&`; a parameter without value keeps its `=` (`uploads=`).
    public static func canonicalQuery(_ parameters: [(name: String, value: String)]) -> String {
        parameters
            .map { (encode($0.name, keepSlash: false), encode($0.value, keepSlash: false)) }
            .sorted { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
             UInt8(ascii: "."), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> Unicode.Scalar {
        Unicode.Scalar(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10)
    }
}
