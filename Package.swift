// swift-tools-version:6.1
import PackageDescription

/// AttachmentStore: notes with large photo attachments, stored byte for byte in
/// content-addressed files, catalogued in SQLite, never blocking the caller.
///
/// Dependency arrows point one way: attach → AttachmentServer → AttachmentStore → Imaging → CVips.
/// Only `Imaging` imports `CVips` and `CWebPMux`; only `AttachmentServer` imports Hummingbird and `CZlib`.
let package = Package(
    name: "AttachmentStore",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AttachmentStore", targets: ["AttachmentStore"]),
        .library(name: "Imaging", targets: ["Imaging"]),
        .library(name: "AttachmentSync", targets: ["AttachmentSync"]),
        .library(name: "AttachmentServer", targets: ["AttachmentServer"]),
        .library(name: "AttachmentClient", targets: ["AttachmentClient"]),
        .library(name: "S3Client", targets: ["S3Client"]),
        .library(name: "AttachmentS3", targets: ["AttachmentS3"]),
        .library(name: "AttachmentPostgres", targets: ["AttachmentPostgres"]),
        .executable(name: "attach", targets: ["attach"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.100.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.0"),
        // TLS for PostgreSQL catalogs and https peers (NIOSSL, also under AsyncHTTPClient and HummingbirdTLS).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Typed error numbers (`Errno`) for the cause a store error carries; already under swift-nio.
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.30.0"),
        // AttachmentClient's JSON operations, generated from the server's openapi.yaml (issue 16).
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        // The HTTP server (issue 4). Its own swift-configuration support is left out: `attach` reads
        // its settings itself (Settings, over swift-configuration) and hands the server a ServerConfiguration.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
        // Bearer tokens and login sessions for `attach serve` (issue 12).
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // The configuration file and the environment of `attach` (issue 30): the YAML trait reads
        // /etc/attach/attach.conf.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: ["YAML"]),
        // The PostgreSQL catalog (AttachmentPostgres).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        // Micro-benchmarks (`make bench`). Naming the trait turns off the default
        // RuntimeInterposer trait, whose package (ARC counters on Linux) is not needed here.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // Only in tests: the reference our own streaming multipart reader is fuzzed against (issue 15).
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
        // The DocC catalogs (`make docs`).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // libvips (8.12 or later), loaded with dlopen on first use rather than linked: a command
        // that touches no image starts without it and the hundred libraries it brings.
        .target(name: "CVips"),
        // zlib, for the CRC-32 of the zip of originals the server streams.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // Linux calls Swift's Glibc module does not declare (syncfs).
        .target(name: "CLinux"),
        // libwebpmux, to take metadata chunks out of the WebP thumbnails libvips writes.
        .systemLibrary(
            name: "CWebPMux",
            pkgConfig: "libwebpmux",
            providers: [.apt(["libwebp-dev"])]
        ),
        // Helper programs (ffmpeg, ffprobe, pdftoppm) run as limited child processes.
        .target(name: "HelperProcess", dependencies: ["CLinux"]),
        .target(
            name: "Imaging",
            dependencies: ["CVips", "CWebPMux", "HelperProcess"]
        ),
        // The SQL seam between the store's catalog logic and its databases (SQLite, PostgreSQL).
        .target(name: "CatalogSQL"),
        // Async coordination the other modules share: one job per key (SingleFlight) and
        // slots handed out in order (AsyncGate).
        .target(name: "AsyncCoordination"),
        // A CatalogSQL database on PostgreSQL (postgres-nio), for catalogs shared by several servers.
        .target(
            name: "AttachmentPostgres",
            dependencies: [
                "CatalogSQL", "AsyncCoordination",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "AttachmentStore",
            dependencies: [
                "Imaging", "CatalogSQL", "AsyncCoordination", "CLinux",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // A small S3 client (SigV4, multipart, listing) for the scale-out blob store of issue 8.
        // It knows nothing of AttachmentStore.
        .target(
            name: "S3Client",
            dependencies: [
                "AsyncCoordination",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The S3 blob backend of issue 8: AttachmentStore's BlobObjectStore over S3Client.
        .target(
            name: "AttachmentS3",
            dependencies: ["AttachmentStore", "S3Client"]
        ),
        .target(
            name: "AttachmentSync",
            dependencies: [
                "AttachmentStore", "AsyncCoordination",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "AttachmentServer",
            dependencies: [
                "AttachmentStore", "AttachmentSync", "AsyncCoordination", "CatalogSQL", "CZlib",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            ],
            // Embedded in the binary (PackageResources.<name> in generated code): an installed
            // `attach` needs no resource bundle beside it and no build folder (issue 30).
            resources: [
                .embedInCode("Resources/openapi.yaml"),
                .embedInCode("Resources/static/app.css"),
                .embedInCode("Resources/static/common.js"),
                .embedInCode("Resources/static/app.js"),
                .embedInCode("Resources/static/viewer.js"),
                .embedInCode("Resources/static/gallery.js"),
                .embedInCode("Resources/static/shortcuts.js"),
                .embedInCode("Resources/static/icon.svg"),
                .embedInCode("Resources/static/resumable-upload.js"),
                .embedInCode("Resources/static/digest-worker.js"),
            ]
        ),
        // A Swift client of `attach serve` for apps and services (issue 16).
        .target(
            name: "AttachmentClient",
            dependencies: [
                "AsyncCoordination",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .executableTarget(
            name: "attach",
            dependencies: [
                "AttachmentStore", "AttachmentSync", "AttachmentServer", "AttachmentS3", "AttachmentPostgres", "CatalogSQL", "S3Client",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
            ],
            linkerSettings: [
                // A release `attach` is linked by the toolchain's lld with packed relative relocations
                // (DT_RELR, glibc 2.36) and without exporting its own symbols: the loader then reads a
                // 30 KB relocation table instead of 3.5 MB at every start, and `attach stats` peaks at
                // about 26 MiB instead of 35 (BENCHMARKS.md, start section). Nothing looks a symbol
                // of the executable up by name; libvips is opened with dlopen and resolved from its handle.
                .unsafeFlags(
                    ["-use-ld=lld", "-Xlinker", "--no-export-dynamic", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"],
                    .when(configuration: .release)
                ),
            ],
            plugins: ["BuildInfoPlugin"]
        ),
        // Writes BuildInfo.swift (the commit) before every build of `attach`, for `attach --version`.
        .plugin(name: "BuildInfoPlugin", capability: .buildTool(), path: "Plugins/BuildInfoPlugin"),
        .executableTarget(
            name: "attach-bench",
            dependencies: [
                "AttachmentStore", "Imaging", "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/attach-bench",
            // Linked as `attach` is (see above), so that its memory figures (the gallery's
            // peak, BENCHMARKS.md) are those of a program built the way we ship one.
            linkerSettings: [
                .unsafeFlags(
                    ["-use-ld=lld", "-Xlinker", "--no-export-dynamic", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"],
                    .when(configuration: .release)
                ),
            ]
        ),
        .target(
            name: "TestSupport",
            dependencies: [
                "AttachmentStore", "AttachmentS3", "AttachmentPostgres", "S3Client",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Tests/TestSupport"
        ),
        .executableTarget(
            name: "peak-rss",
            path: "Tests/Tools/peak-rss"
        ),
        .testTarget(
            name: "HelperProcessTests",
            dependencies: ["HelperProcess", "TestSupport"]
        ),
        .testTarget(
            name: "ImagingTests",
            dependencies: ["Imaging", "TestSupport"]
        ),
        .testTarget(
            name: "AsyncCoordinationTests",
            dependencies: ["AsyncCoordination"]
        ),
        .testTarget(
            name: "CatalogSQLTests",
            dependencies: ["CatalogSQL"]
        ),
        .testTarget(
            name: "AttachmentSyncTests",
            dependencies: ["AttachmentSync", "AttachmentStore", "TestSupport"]
        ),
        .testTarget(
            name: "AttachmentS3Tests",
            dependencies: ["AttachmentS3", "AttachmentStore", "S3Client"]
        ),
        .testTarget(
            name: "AttachmentClientTests",
            dependencies: [
                "AttachmentClient", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ]
        ),
        .testTarget(
            name: "AttachmentStoreTests",
            dependencies: [
                "AttachmentStore", "TestSupport", "AttachmentS3", "S3Client", "CatalogSQL",
            ]
        ),
        .testTarget(
            name: "AttachCLITests",
            dependencies: [
                "attach", "peak-rss", "TestSupport", "AttachmentStore", "AttachmentSync", "AttachmentS3", "S3Client", "Imaging", "CatalogSQL",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "AttachmentServerTests",
            dependencies: [
                "AttachmentServer", "AttachmentStore", "AttachmentSync", "AttachmentClient", "AsyncCoordination", "TestSupport", "CatalogSQL",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "MultipartKit", package: "multipart-kit"),
            ]
        ),
        .testTarget(
            name: "S3ClientTests",
            dependencies: [
                "S3Client", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(
            name: "AttachmentPostgresTests",
            dependencies: [
                "AttachmentPostgres", "CatalogSQL", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
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
