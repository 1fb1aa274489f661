import Foundation
import Hummingbird
import NIOCore
import NIOPosix

/// A response body that streams part of a file no faster than a given rate: how
/// `attach serve --peer-bandwidth` keeps blob transfers to peers from filling a link.
enum ThrottledFileBody {
    /// Bytes read and written per step.
    static let chunkSize = 64 << 10

    /// The bytes `range` of the file at `path`, at most `bytesPerSecond`. Reads run on NIO's
    /// blocking pool, never on the cooperative pool.
    static func make(path: String, range: ClosedRange<Int64>, bytesPerSecond: Int64) -> ResponseBody {
        ResponseBody(contentLength: Int(range.upperBound - range.lowerBound + 1)) { writer in
            let handle = try await NIOThreadPool.singleton.runIfActive { () -> FileHandle in
                let handle = try FileHandle(forReadingFrom: URL(filePath: path))
                try handle.seek(toOffset: UInt64(range.lowerBound))
                return handle
            }
            defer { try? handle.close() }
            let clock = ContinuousClock()
            let started = clock.now
            var sent: Int64 = 0
            let total = range.upperBound - range.lowerBound + 1
            while sent < total {
                let wanted = Int(min(Int64(chunkSize), total - sent))
                let data = try await NIOThreadPool.singleton.runIfActive { try handle.read(upToCount: wanted) ?? Data() }
                guard !data.isEmpty else { break }
                try await writer.write(ByteBuffer(data: data))
                sent += Int64(data.count)
                let due = started + .milliseconds(sent * 1000 / max(1, bytesPerSecond))
                if due > clock.now { try await Task.sleep(until: due, clock: clock) }
            }
            try await writer.finish(nil)
        }
    }
}
