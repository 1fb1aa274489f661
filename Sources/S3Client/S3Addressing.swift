/// How a request names its bucket: in the path (`ENDPOINT/BUCKET/KEY`), which every
/// S3-compatible server accepts, or in the host (`BUCKET.ENDPOINT-HOST/KEY`), which AWS
/// prefers and which is the only form for buckets made after AWS stopped path-style access.
public enum S3Addressing: String, Sendable, Equatable, CaseIterable {
    /// `ENDPOINT/BUCKET/KEY`.
    case path
    /// `BUCKET.HOST/KEY`, the endpoint's own path kept in front of the key.
    case virtualHosted = "virtual"

    /// The addressing `auto` means for `bucket` on `endpointHost`: virtual-hosted on AWS
    /// (`*.amazonaws.com`, `*.amazonaws.com.cn`) when the bucket's name can be a DNS label that
    /// a wildcard certificate covers (lower-case letters, digits and hyphens, 3–63 long, no
    /// dots); path-style everywhere else, where a server's support for bucket host names
    /// depends on its DNS.
    public static func automatic(bucket: String, endpointHost: String) -> S3Addressing {
        let host = endpointHost.lowercased()
        let onAWS = host.hasSuffix(".amazonaws.com") || host.hasSuffix(".amazonaws.com.cn")
        return onAWS && isHostLabel(bucket) ? .virtualHosted : .path
    }

    /// Whether `bucket` can stand as one DNS label in front of a host name.
    public static func isHostLabel(_ bucket: String) -> Bool {
        let bytes = Array(bucket.utf8)
        guard (3...63).contains(bytes.count), bytes.first != UInt8(ascii: "-"), bytes.last != UInt8(ascii: "-") else { return false }
        return bytes.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == UInt8(ascii: "-") }
    }
}
