/// How an ``S3Client`` retries an idempotent request that failed in a way that may pass:
/// a connection error, a 5xx other than 501, 429, or S3's `SlowDown` and `RequestTimeout`.
///
/// Retries wait with exponential backoff and full jitter: before retry *n* (1-based) a random
/// time between zero and `min(maxDelay, baseDelay × 2ⁿ⁻¹)`. A 4xx answer is never retried;
/// neither is a request that is not idempotent (creating or completing a multipart upload).
public struct S3RetryPolicy: Sendable, Equatable {
    /// How many times a request is sent at most, the first included (1 = no retry). Default 4.
    public var maxAttempts: Int
    /// The backoff cap before the first retry. Default 100 ms.
    public var baseDelay: Duration
    /// The longest wait between two attempts. Default 5 s.
    public var maxDelay: Duration

    /// A policy of `maxAttempts` attempts with backoff from `baseDelay` up to `maxDelay`.
    public init(maxAttempts: Int = 4, baseDelay: Duration = .milliseconds(100), maxDelay: Duration = .seconds(5)) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The longest wait before retry number `retry` (1-based), before jitter.
    public func backoffCap(beforeRetry retry: Int) -> Duration {
        let doublings = min(max(retry - 1, 0), 30)
        let cap = baseDelay * (1 << doublings)
        return min(cap, maxDelay)
    }

    /// A random wait in `0...backoffCap(beforeRetry:)` (full jitter).
    func delay(beforeRetry retry: Int) -> Duration {
        let capNanoseconds = backoffCap(beforeRetry: retry).nanoseconds
        guard capNanoseconds > 0 else { return .zero }
        return .nanoseconds(Int64.random(in: 0...capNanoseconds))
    }

    /// The S3 error codes that mean the temporary credentials ran out (fetch new ones and try again).
    static let expiredCredentialCodes: Set<String> = ["ExpiredToken", "TokenRefreshRequired"]

    /// Whether an HTTP status (with the S3 error code of its body) may succeed when retried.
    static func isRetryable(status: Int, s3Code: String?) -> Bool {
        if status == 429 || (status >= 500 && status != 501) { return true }
        return s3Code == "SlowDown" || s3Code == "RequestTimeout"
    }
}

extension Duration {
    /// The duration in whole nanoseconds (saturating).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : scaled + attoseconds / 1_000_000_000
    }
}
