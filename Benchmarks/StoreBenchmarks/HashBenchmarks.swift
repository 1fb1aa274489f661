import Benchmark
import Crypto

/// SHA-256 throughput (swift-crypto), the hash every ingest computes while it copies.
enum HashBenchmarks {
    /// The buffer hashed per iteration: 16 MiB.
    static let bufferSize = 16 << 20

    /// Bytes hashed per second, measured around the hash call alone.
    static let bytesPerSecond = BenchmarkMetric.custom("bytes/s", polarity: .prefersLarger, useScalingFactor: false)

    static func register() {
        Benchmark(
            "SHA-256, 16 MiB buffer",
            configuration: BenchmarkSettings.configuration(
                metrics: [.wallClock, .throughput, .mallocCountTotal, bytesPerSecond],
                maxDuration: .seconds(5), maxIterations: 1_000
            )
        ) { benchmark, buffer in
            let clock = ContinuousClock()
            let start = clock.now
            let digest = SHA256.hash(data: buffer)
            let elapsed = start.duration(to: clock.now)
            blackHole(digest)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            if seconds > 0 { benchmark.measurement(bytesPerSecond, Int(Double(buffer.count) / seconds)) }
        } setup: {
            // SHA-256 costs the same whatever the bytes; pseudo-random ones (SplitMix64, fixed
            // seed) just rule out any shortcut and keep runs identical.
            [UInt8](unsafeUninitializedCapacity: bufferSize) { bytes, count in
                let raw = UnsafeMutableRawBufferPointer(bytes)
                var state: UInt64 = 0x5EED
                for offset in stride(from: 0, to: bufferSize, by: 8) {
                    state &+= 0x9E37_79B9_7F4A_7C15
                    var z = state
                    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                    raw.storeBytes(of: z ^ (z >> 31), toByteOffset: offset, as: UInt64.self)
                }
                count = bufferSize
            }
        }
    }
}
