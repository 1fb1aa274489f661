import Foundation

/// A self-signed certificate for 127.0.0.1 (and `localhost`), made by `openssl` for one test:
/// the certificate doubles as the CA a client must trust to accept it.
public struct TestCertificate: Sendable {
    /// The PEM certificate file.
    public let certificate: String
    /// The PEM private key file.
    public let key: String

    /// `openssl` failed; its message.
    public struct Failed: Error, CustomStringConvertible {
        public let description: String
    }

    /// Makes `NAME.crt` and `NAME.key` in `directory`.
    public init(in directory: TemporaryDirectory, name: String = "server") async throws {
        certificate = directory.appending("\(name).crt").path(percentEncoded: false)
        key = directory.appending("\(name).key").path(percentEncoded: false)
        let made = try await ChildProcess.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key, "-out", certificate,
        ])
        guard made.exitCode == 0 else { throw Failed(description: "openssl: \(made.stderr)") }
    }
}
