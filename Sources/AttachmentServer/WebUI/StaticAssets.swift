import Hummingbird
import NIOCore

/// The web UI's files (CSS, JavaScript, icons) and the OpenAPI document, embedded in the binary
/// and served from memory.
///
/// Each file's address carries a digest of its bytes (`/static/app.js?v=...`), so pages can
/// let browsers cache them as immutable and still pick up a new version at once.
struct StaticAssets: Sendable {
    /// One file, ready to send.
    struct Asset: Sendable {
        let bytes: ByteBuffer
        let contentType: String
        /// A short digest of the bytes, used as ETag and as the `v` of the address.
        let version: String
    }

    private let files: [String: Asset]

    /// The file called `name` (`app.js`, `openapi.yaml`).
    subscript(name: String) -> Asset? { files[name] }

    /// The address of static file `name` with its version, for pages to link.
    func url(_ name: String) -> String {
        "/static/\(name)?v=\(files[name]?.version ?? "0")"
    }

    /// The files embedded in the binary at build time (Package.swift's `embedInCode` resources),
    /// by the name they are served under. An installed `attach` carries them; nothing is read
    /// from disk, so no build folder or resource bundle has to travel with it.
    static let embedded: [(name: String, bytes: [UInt8])] = [
        ("openapi.yaml", PackageResources.openapi_yaml),
        ("app.css", PackageResources.app_css),
        ("common.js", PackageResources.common_js),
        ("app.js", PackageResources.app_js),
        ("viewer.js", PackageResources.viewer_js),
        ("gallery.js", PackageResources.gallery_js),
        ("shortcuts.js", PackageResources.shortcuts_js),
        ("icon.svg", PackageResources.icon_svg),
        ("resumable-upload.js", PackageResources.resumable_upload_js),
        ("digest-worker.js", PackageResources.digest_worker_js),
    ]

    /// The embedded files, each with its content type and version digest.
    static func load() -> StaticAssets {
        var files: [String: Asset] = [:]
        for (name, bytes) in embedded {
            files[name] = Asset(bytes: ByteBuffer(bytes: bytes), contentType: contentType(of: name), version: digest(bytes))
        }
        return StaticAssets(files: files)
    }

    private static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last {
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "yaml": "application/yaml; charset=utf-8"
        case "html": "text/html; charset=utf-8"
        case "png": "image/png"
        case "ico": "image/x-icon"
        default: "application/octet-stream"
        }
    }

    /// FNV-1a, 64 bits, in hex: enough to tell versions of a file apart.
    private static func digest(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

