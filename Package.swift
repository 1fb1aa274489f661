// swift-tools-version:6.1
import PackageDescription

/// AttachmentStore: notes with large photo attachments, stored byte for byte in
/// content-addressed files, catalogued in SQLite, never blocking the caller.
///
/// Dependency arrows point one way: attach → AttachmentStore → Imaging → CVips.
/// Only `Imaging` imports `CVips`.
let package = Package(
    name: "AttachmentStore",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AttachmentStore", targets: ["AttachmentStore"]),
        .library(name: "Imaging", targets: ["Imaging"]),
        .executable(name: "attach", targets: ["attach"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.100.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.14.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Micro-benchmarks (`make bench`). Naming the trait turns off the default
        // RuntimeInterposer trait, whose package (ARC counters on Linux) is not needed here.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]
        ),
        .target(
            name: "Imaging",
            dependencies: ["CVips"]
        ),
        .target(
            name: "AttachmentStore",
            dependencies: [
                "Imaging",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "attach",
            dependencies: [
                "AttachmentStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(
            name: "TestSupport",
            dependencies: [
                "AttachmentStore",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/TestSupport"
        ),
        .executableTarget(
            name: "peak-rss",
            path: "Tests/Tools/peak-rss"
        ),
        .testTarget(
            name: "ImagingTests",
            dependencies: ["Imaging", "TestSupport"]
        ),
        .testTarget(
            name: "AttachmentStoreTests",
            dependencies: [
                "AttachmentStore", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "AttachCLITests",
            dependencies: [
                "attach", "peak-rss", "TestSupport", "AttachmentStore", "Imaging",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Run by `make bench` through `swift package benchmark`; never by `swift test`.
        .executableTarget(
            name: "StoreBenchmarks",
            dependencies: [
                "AttachmentStore", "Imaging",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Benchmarks/StoreBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
