import CZlib
import Foundation
import NIOCore

/// A ZIP archive written as a stream, one entry after another, without knowing any entry's
/// CRC-32 before its bytes have gone by: the format's "data descriptor" (general-purpose flag
/// bit 3) carries each entry's CRC and sizes after its bytes, and the central directory at the
/// end repeats them. Entries are stored, not compressed (photos and videos are compressed
/// already), with UTF-8 names (flag bit 11).
///
/// ZIP64 is used where the classic 32-bit fields would overflow, and only there: an entry of
/// 4 GiB or more, an entry that starts past 4 GiB, a central directory past 4 GiB or more than
/// 65,534 entries. `zip64Threshold` lowers that limit so tests can exercise ZIP64 with small
/// files.
///
/// The caller writes, in order: ``begin(name:modified:size:)``'s bytes, the entry's own bytes
/// (each chunk through ``add(_:)``, which keeps the CRC), ``finish()``'s bytes; then, after the
/// last entry, ``end()``'s bytes.
struct ZipStream {
    /// Where 32-bit fields give way to ZIP64 (0xFFFFFFFF in the format; lower in tests).
    let zip64Threshold: Int64

    private struct Entry {
        let name: [UInt8]
        let dosTime: UInt16
        let dosDate: UInt16
        let offset: Int64
        let zip64: Bool
        var crc: UInt32 = 0
        var size: Int64 = 0
    }

    private var entries: [Entry] = []
    private var current: Entry?
    /// Bytes of the archive written so far.
    private(set) var offset: Int64 = 0

    init(zip64Threshold: Int64 = 0xFFFF_FFFF) {
        self.zip64Threshold = zip64Threshold
    }

    /// The local header of an entry called `name` of `size` bytes (as promised: the entry is
    /// ZIP64 when `size` or where it starts reach the threshold).
    mutating func begin(name: String, modified: Date, size: Int64) -> ByteBuffer {
        precondition(current == nil, "finish() the entry before beginning another")
        let (time, date) = Self.dosTimestamp(modified)
        let entry = Entry(name: Array(name.utf8), dosTime: time, dosDate: date, offset: offset,
                          zip64: size >= zip64Threshold || offset >= zip64Threshold)
        var header = ByteBuffer()
        header.writeInteger(UInt32(0x0403_4b50), endianness: .little)
        header.writeInteger(UInt16(entry.zip64 ? 45 : 20), endianness: .little)  // version needed
        header.writeInteger(UInt16(1 << 3 | 1 << 11), endianness: .little)       // data descriptor, UTF-8 name
        header.writeInteger(UInt16(0), endianness: .little)                       // stored
        header.writeInteger(entry.dosTime, endianness: .little)
        header.writeInteger(entry.dosDate, endianness: .little)
        header.writeInteger(UInt32(0), endianness: .little)                       // CRC: in the descriptor
        header.writeInteger(entry.zip64 ? UInt32.max : 0, endianness: .little)    // sizes: in the descriptor
        header.writeInteger(entry.zip64 ? UInt32.max : 0, endianness: .little)
        header.writeInteger(UInt16(entry.name.count), endianness: .little)
        header.writeInteger(UInt16(entry.zip64 ? 20 : 0), endianness: .little)
        header.writeBytes(entry.name)
        if entry.zip64 {  // the ZIP64 extra field: the sizes, zero until the descriptor
            header.writeInteger(UInt16(0x0001), endianness: .little)
            header.writeInteger(UInt16(16), endianness: .little)
            header.writeInteger(UInt64(0), endianness: .little)
            header.writeInteger(UInt64(0), endianness: .little)
        }
        current = entry
        offset += Int64(header.readableBytes)
        return header
    }

    /// Counts `chunk`, the entry's next bytes, into its CRC and size; the caller writes it.
    mutating func add(_ chunk: [UInt8]) {
        precondition(current != nil, "begin() an entry first")
        let crc = chunk.withUnsafeBufferPointer { bytes in
            CZlib.crc32(UInt(current!.crc), bytes.baseAddress, UInt32(bytes.count))
        }
        current!.crc = UInt32(truncatingIfNeeded: crc)
        current!.size += Int64(chunk.count)
        offset += Int64(chunk.count)
    }

    /// The data descriptor that ends the current entry: its CRC-32 and sizes.
    mutating func finish() -> ByteBuffer {
        guard let entry = current else { preconditionFailure("begin() an entry first") }
        var descriptor = ByteBuffer()
        descriptor.writeInteger(UInt32(0x0807_4b50), endianness: .little)
        descriptor.writeInteger(entry.crc, endianness: .little)
        if entry.zip64 {
            descriptor.writeInteger(UInt64(entry.size), endianness: .little)
            descriptor.writeInteger(UInt64(entry.size), endianness: .little)
        } else {
            descriptor.writeInteger(UInt32(entry.size), endianness: .little)
            descriptor.writeInteger(UInt32(entry.size), endianness: .little)
        }
        entries.append(entry)
        current = nil
        offset += Int64(descriptor.readableBytes)
        return descriptor
    }

    /// The central directory and the end records: the archive's last bytes.
    mutating func end() -> ByteBuffer {
        precondition(current == nil, "finish() the last entry first")
        var tail = ByteBuffer()
        let directoryStart = offset
        for entry in entries {
            // ZIP64 fields for what does not fit in 32 bits, in the format's order.
            var extra: [UInt64] = []
            if entry.size >= zip64Threshold { extra += [UInt64(entry.size), UInt64(entry.size)] }
            if entry.offset >= zip64Threshold { extra.append(UInt64(entry.offset)) }
            let wide = !extra.isEmpty || entry.zip64
            tail.writeInteger(UInt32(0x0201_4b50), endianness: .little)
            tail.writeInteger(UInt16(3 << 8 | (wide ? 45 : 20)), endianness: .little)  // made by: Unix
            tail.writeInteger(UInt16(wide ? 45 : 20), endianness: .little)
            tail.writeInteger(UInt16(1 << 3 | 1 << 11), endianness: .little)
            tail.writeInteger(UInt16(0), endianness: .little)
            tail.writeInteger(entry.dosTime, endianness: .little)
            tail.writeInteger(entry.dosDate, endianness: .little)
            tail.writeInteger(entry.crc, endianness: .little)
            let size = entry.size >= zip64Threshold ? UInt32.max : UInt32(entry.size)
            tail.writeInteger(size, endianness: .little)
            tail.writeInteger(size, endianness: .little)
            tail.writeInteger(UInt16(entry.name.count), endianness: .little)
            tail.writeInteger(UInt16(extra.isEmpty ? 0 : 4 + 8 * extra.count), endianness: .little)
            tail.writeInteger(UInt16(0), endianness: .little)        // comment
            tail.writeInteger(UInt16(0), endianness: .little)        // disk
            tail.writeInteger(UInt16(0), endianness: .little)        // internal attributes
            tail.writeInteger(UInt32(0o100644) << 16, endianness: .little)  // a regular file, rw-r--r--
            tail.writeInteger(entry.offset >= zip64Threshold ? UInt32.max : UInt32(entry.offset), endianness: .little)
            tail.writeBytes(entry.name)
            if !extra.isEmpty {
                tail.writeInteger(UInt16(0x0001), endianness: .little)
                tail.writeInteger(UInt16(8 * extra.count), endianness: .little)
                for field in extra { tail.writeInteger(field, endianness: .little) }
            }
        }
        let directorySize = Int64(tail.readableBytes)
        let directoryEnd = directoryStart + directorySize
        let count = entries.count
        if directoryStart >= zip64Threshold || directorySize >= zip64Threshold || count >= 0xFFFF
            || entries.contains(where: \.zip64) {
            // The ZIP64 end of central directory record, then its locator.
            tail.writeInteger(UInt32(0x0606_4b50), endianness: .little)
            tail.writeInteger(UInt64(44), endianness: .little)
            tail.writeInteger(UInt16(3 << 8 | 45), endianness: .little)
            tail.writeInteger(UInt16(45), endianness: .little)
            tail.writeInteger(UInt32(0), endianness: .little)
            tail.writeInteger(UInt32(0), endianness: .little)
            tail.writeInteger(UInt64(count), endianness: .little)
            tail.writeInteger(UInt64(count), endianness: .little)
            tail.writeInteger(UInt64(directorySize), endianness: .little)
            tail.writeInteger(UInt64(directoryStart), endianness: .little)
            tail.writeInteger(UInt32(0x0706_4b50), endianness: .little)
            tail.writeInteger(UInt32(0), endianness: .little)
            tail.writeInteger(UInt64(directoryEnd), endianness: .little)
            tail.writeInteger(UInt32(1), endianness: .little)
        }
        tail.writeInteger(UInt32(0x0605_4b50), endianness: .little)
        tail.writeInteger(UInt16(0), endianness: .little)
        tail.writeInteger(UInt16(0), endianness: .little)
        tail.writeInteger(UInt16(min(count, 0xFFFF)), endianness: .little)
        tail.writeInteger(UInt16(min(count, 0xFFFF)), endianness: .little)
        tail.writeInteger(directorySize >= zip64Threshold ? UInt32.max : UInt32(directorySize), endianness: .little)
        tail.writeInteger(directoryStart >= zip64Threshold ? UInt32.max : UInt32(directoryStart), endianness: .little)
        tail.writeInteger(UInt16(0), endianness: .little)
        offset += Int64(tail.readableBytes)
        return tail
    }

    /// `date` as MS-DOS time and date fields (UTC; two-second steps; 1980 at the earliest).
    static func dosTimestamp(_ date: Date) -> (time: UInt16, date: UInt16) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let year = min(max((parts.year ?? 1980) - 1980, 0), 127)
        let time = UInt16((parts.hour ?? 0) << 11 | (parts.minute ?? 0) << 5 | (parts.second ?? 0) / 2)
        let day = UInt16(year << 9 | (parts.month ?? 1) << 5 | (parts.day ?? 1))
        return (time, day)
    }
}

/// The names entries of a zip of originals get: each file's own name, made safe for whoever
/// unpacks it (no folder parts, no `..`, no control characters; at most 200 bytes, keeping the
/// extension) and unique within the archive ("IMG_0001 (2).jpg" for the second of a name).
struct ZipEntryNames {
    private var taken: Set<String> = []

    /// A safe, unique entry name for a file called `filename`.
    mutating func name(for filename: String) -> String {
        let safe = Self.safe(filename)
        var candidate = safe
        var copy = 2
        let (stem, dotExtension) = Self.split(safe)
        while taken.contains(candidate.lowercased()) {
            candidate = "\(stem) (\(copy))\(dotExtension)"
            copy += 1
        }
        taken.insert(candidate.lowercased())
        return candidate
    }

    /// `filename` with path separators, control characters and characters Windows refuses made
    /// `_`, leading dots and spaces dropped, cut to 200 bytes; "file" when nothing is left.
    static func safe(_ filename: String) -> String {
        let refused = Set<Unicode.Scalar>(["/", "\\", ":", "*", "?", "\"", "<", ">", "|"])
        var scalars = String.UnicodeScalarView()
        for scalar in filename.unicodeScalars {
            let control = scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
            scalars.append(control || refused.contains(scalar) ? "_" : scalar)
        }
        var name = String(scalars).trimmingCharacters(in: .whitespaces)
        while name.hasPrefix(".") { name.removeFirst() }
        if name.isEmpty { name = "file" }
        guard name.utf8.count > 200 else { return name }
        let (stem, dotExtension) = split(name)
        var cut = stem
        while cut.utf8.count + dotExtension.utf8.count > 200 { cut.removeLast() }
        return cut + (dotExtension.utf8.count < 200 ? dotExtension : "")
    }

    /// `name` as its stem and its extension with the dot ("" when it has none).
    private static func split(_ name: String) -> (stem: String, dotExtension: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[dot...]))
    }
}
