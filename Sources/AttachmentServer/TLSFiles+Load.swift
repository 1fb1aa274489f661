import HummingbirdTLS
import NIOSSL

extension ServerConfiguration.TLSFiles {
    /// The server's TLS configuration from the two PEM files.
    /// - Throws: ``ServerConfiguration/Problem/unreadableTLSFile(path:reason:)`` naming the file.
    func serverConfiguration() throws(ServerConfiguration.Problem) -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateChain)
        } catch {
            throw .unreadableTLSFile(path: certificateChain, reason: "\(error)")
        }
        guard !chain.isEmpty else { throw .unreadableTLSFile(path: certificateChain, reason: "it holds no certificate") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: privateKey, format: .pem)
        } catch {
            throw .unreadableTLSFile(path: privateKey, reason: "\(error)")
        }
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    }
}
