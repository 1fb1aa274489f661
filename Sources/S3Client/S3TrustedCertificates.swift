import NIOSSL

/// The certificate authorities an S3 client trusts for `https` endpoints instead of the
/// system's: a PEM bundle, as `AWS_CA_BUNDLE` names one for the AWS SDKs (a private CA in
/// front of MinIO or Ceph, a TLS-inspecting proxy). Loaded once, when the configuration is
/// made, so a missing or malformed file is an error there and not at the first request.
public struct S3TrustedCertificates: Sendable, Equatable, CustomStringConvertible {
    /// The PEM file the certificates came from.
    public let path: String
    let certificates: [NIOSSLCertificate]

    /// The certificates of the PEM file at `path`.
    /// - Throws: ``S3ClientError/invalidConfiguration(_:)`` when the file cannot be read or
    ///   holds no PEM certificate.
    public init(pemFile path: String) throws(S3ClientError) {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw .invalidConfiguration("the CA bundle \(path) cannot be read as PEM certificates (\(error))")
        }
        guard !certificates.isEmpty else { throw .invalidConfiguration("the CA bundle \(path) holds no certificate") }
        self.path = path
        self.certificates = certificates
    }

    public static func == (lhs: S3TrustedCertificates, rhs: S3TrustedCertificates) -> Bool {
        lhs.path == rhs.path && lhs.certificates == rhs.certificates
    }

    /// `CA bundle PATH (N certificates)`.
    public var description: String { "CA bundle \(path) (\(certificates.count) certificate\(certificates.count == 1 ? "" : "s"))" }
}
