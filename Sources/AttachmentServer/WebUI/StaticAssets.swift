import Foundation
import Hummingbird
import NIOCore
import NIOPosix

/// The web UI's files (CSS, JavaScript, icons) and the OpenAPI document, read once from the
/// target's resources at start and served from memory.
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

    /// Reads every file under the `Resources` folder of this target, off the cooperative pool.
    /// - Throws: when the resources cannot be found or read.
    static func load() async throws -> StaticAssets {
        try await NIOThreadPool.singleton.runIfActive {
            let root = Bundle.module.bundleURL.appending(path: "Resources")
            guard FileManager.default.fileExists(atPath: root.path(percentEncoded: false)) else {
                throw ServerError(.internalServerError, code: "resources_missing", message: "the server's resource bundle is missing")
            }
            var files: [String: Asset] = [:]
            for folder in [root, root.appending(path: "static")] {
                let names = try FileManager.default.contentsOfDirectory(atPath: folder.path(percentEncoded: false))
                for name in names.sorted() where !name.hasPrefix(".") {
                    let url = folder.appending(path: name)
                    var isDirectory: ObjCBool = false
                    guard FileManager.default.fileExists(atPath: url.path(percentEncoded: false), isDirectory: &isDirectory),
                          !isDirectory.boolValue else { continue }
                    let data = try Data(contentsOf: url)
                    files[name] = Asset(bytes: ByteBuffer(data: data), contentType: contentType(of: name), version: digest(data))
                }
            }
            return StaticAssets(files: files)
        }
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
    private static func digest(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

import NIOFoundationCompat
