import Foundation

/// Progressive copies of JPEG files, and telling progressive coding from sequential.
enum ProgressiveJPEG {
    /// Writes `source` coded progressive to `destination`: losslessly with `jpegtran`
    /// (libjpeg-turbo-progs: the same picture, only the scans differ), else re-encoded by
    /// `vips` (libvips-tools) at quality 87. `make corpus` installs both.
    /// - Throws: ``SetupFailure`` when neither tool is on `PATH` or the one found fails.
    static func make(from source: URL, to destination: URL) throws {
        let input = source.path(percentEncoded: false)
        let output = destination.path(percentEncoded: false)
        if try run(["jpegtran", "-copy", "all", "-progressive", "-outfile", output, input]) { return }
        if try run(["vips", "copy", input, output + "[interlace,Q=87]"]) { return }
        throw SetupFailure(
            "cannot make a progressive copy of \(input): neither jpegtran nor vips is on PATH "
                + "(apt-get install libjpeg-turbo-progs, or run `make corpus`, which installs it)"
        )
    }

    /// Runs a command looked up on `PATH`: true when it succeeded, false when it is not there.
    /// - Throws: ``SetupFailure`` when it ran and failed.
    private static func run(_ arguments: [String]) throws -> Bool {
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if process.terminationStatus == 127 { return false } // env: command not found
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw SetupFailure("`\(arguments.joined(separator: " "))` failed (status \(process.terminationStatus)): \(message)")
        }
        return true
    }

    /// Whether the JPEG at `path` is coded progressive, from its frame header (SOF marker);
    /// nil when the file is not a JPEG or no frame header comes before the first scan.
    /// - Throws: when the file cannot be read.
    static func isProgressive(fileAt path: String) throws -> Bool? {
        let handle = try FileHandle(forReadingFrom: URL(filePath: path))
        defer { try? handle.close() }
        let bytes = [UInt8](try handle.read(upToCount: 1 << 20) ?? Data())
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var index = 2
        while index + 3 < bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            switch marker {
            case 0xFF: index += 1 // fill byte
            case 0xC4, 0xC8, 0xCC: index += 2 + segmentLength(bytes, at: index) // DHT, JPG, DAC
            case 0xC0...0xCF: return [0xC2, 0xC6, 0xCA, 0xCE].contains(marker)
            case 0xD9, 0xDA: return nil // end of image, start of scan
            default: index += 2 + segmentLength(bytes, at: index)
            }
        }
        return nil
    }

    private static func segmentLength(_ bytes: [UInt8], at index: Int) -> Int {
        Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
    }
}
