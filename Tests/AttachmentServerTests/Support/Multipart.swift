import Foundation
import Hummingbird

/// A `multipart/form-data` body built the way browsers build them.
struct Multipart {
    let boundary = "----attachtest\(UInt32.random(in: 0...UInt32.max))"
    /// (field name, file name or nil for a plain field, content).
    let fields: [(String, String?, Data)]

    var headers: HTTPFields { [.contentType: "multipart/form-data; boundary=\(boundary)"] }

    var data: Data {
        var data = Data()
        for (name, filename, content) in fields {
            data.append(Data("--\(boundary)\r\n".utf8))
            if let filename {
                data.append(Data("Content-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\n".utf8))
                data.append(Data("Content-Type: application/octet-stream\r\n\r\n".utf8))
            } else {
                data.append(Data("Content-Disposition: form-data; name=\"\(name)\"\r\n\r\n".utf8))
            }
            data.append(content)
            data.append(Data("\r\n".utf8))
        }
        data.append(Data("--\(boundary)--\r\n".utf8))
        return data
    }

    var body: ByteBuffer { ByteBuffer(data: data) }
}
