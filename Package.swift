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
        .library(name: "AttachmentSync", targets: ["AttachmentSync"]),
        .executable(name: "attach", targets: ["attach"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.100.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.14.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.30.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
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
        .target(
            name: "AttachmentSync",
            dependencies: [
                "AttachmentStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "attach",
            dependencies: [
                "AttachmentStore", "AttachmentSync",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "attach-bench",
            dependencies: [
                "AttachmentStore", "Imaging",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/attach-bench"
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
    ],
    swiftLanguageModes: [.v6]
)
