import Foundation

/// One place credentials come from (the environment, a profile, STS, a metadata endpoint).
protocol CredentialProvider: Sendable {
    /// Where the credentials come from, for errors and logs, e.g. `profile "work" of ~/.aws/credentials`.
    var name: String { get }
    /// Fresh credentials from this place.
    /// - Throws: ``S3ClientError/credentialsUnavailable(source:reason:)``.
    func fetch() async throws(S3ClientError) -> S3Credentials
}

/// The credentials an ``S3Client`` signs with: fixed, or fetched from the AWS default chain on
/// first use and fetched again when they come within ``refreshMargin`` of expiring or a server
/// says they expired. Concurrent requests that need new credentials share one fetch.
actor CredentialCache {
    /// How long before their expiry temporary credentials are replaced.
    static let refreshMargin: Duration = .seconds(300)

    private let source: S3CredentialSource
    private let http: CredentialHTTP
    private var provider: (any CredentialProvider)?
    private var current: S3Credentials?
    private var refresh: Task<Result<S3Credentials, S3ClientError>, Never>?

    init(source: S3CredentialSource, http: CredentialHTTP) {
        self.source = source
        self.http = http
        if case .fixed(let credentials) = source { current = credentials }
    }

    /// Credentials usable now, fetched if there are none or they are about to expire.
    /// - Throws: ``S3ClientError/credentialsUnavailable(source:reason:)``.
    func credentials() async throws(S3ClientError) -> S3Credentials {
        if let current, current.isUsable(at: Date(), margin: Self.refreshMargin) { return current }
        if case .fixed(let credentials) = source { return credentials }
        let task: Task<Result<S3Credentials, S3ClientError>, Never>
        if let refresh {
            task = refresh
        } else {
            let provider = try resolvedProvider()
            task = Task { await Self.fetch(from: provider) }
            refresh = task
        }
        let result = await task.value
        if refresh == task {
            refresh = nil
            if case .success(let credentials) = result { current = credentials }
        }
        return try result.get()
    }

    /// Forgets `credentials` (the server called them expired or invalid) unless newer ones
    /// already replaced them; fixed keys are kept.
    func invalidate(_ credentials: S3Credentials) {
        guard case .awsDefaultChain = source, current == credentials else { return }
        current = nil
    }

    private func resolvedProvider() throws(S3ClientError) -> any CredentialProvider {
        if let provider { return provider }
        guard case .awsDefaultChain(let environment) = source else {
            preconditionFailure("fixed credentials need no provider")
        }
        let resolved = try AWSDefaultCredentialChain(environment: environment, http: http).provider()
        provider = resolved
        return resolved
    }

    private static func fetch(from provider: any CredentialProvider) async -> Result<S3Credentials, S3ClientError> {
        do throws(S3ClientError) {
            return .success(try await provider.fetch())
        } catch {
            return .failure(error)
        }
    }
}
