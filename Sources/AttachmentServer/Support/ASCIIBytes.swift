extension UInt8 {
    /// Whether the byte is `0`–`9`.
    var isASCIIDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }

    /// Whether the byte is an ASCII letter or digit.
    var isASCIILetterOrDigit: Bool {
        isASCIIDigit || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
    }
}
