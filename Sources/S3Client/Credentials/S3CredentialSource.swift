/// Where an ``S3Client`` gets the credentials it signs with.
///
/// Fixed keys are used as given. The AWS default chain looks, at the first request and again
/// whenever temporary credentials come within five minutes of expiring, in the places an AWS
/// deployment puts them, in the order the AWS SDKs use:
///
/// 1. `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`;
/// 2. a web identity token: `AWS_WEB_IDENTITY_TOKEN_FILE` with `AWS_ROLE_ARN` (and
///    `AWS_ROLE_SESSION_NAME`), exchanged at STS (`AssumeRoleWithWebIdentity`; the endpoint is
///    `AWS_ENDPOINT_URL_STS`, else `https://sts.REGION.amazonaws.com`) — what EKS gives a pod;
/// 3. the shared files: profile `AWS_PROFILE` (else `default`) of `AWS_SHARED_CREDENTIALS_FILE`
///    (else `~/.aws/credentials`) and `AWS_CONFIG_FILE` (else `~/.aws/config`), with keys, or
///    with `role_arn` and `web_identity_token_file`;
/// 4. the container endpoint: `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI` (ECS) or
///    `AWS_CONTAINER_CREDENTIALS_FULL_URI` (https, or http to a loopback or the ECS/EKS link-local
///    address), with `AWS_CONTAINER_AUTHORIZATION_TOKEN(_FILE)`;
/// 5. the EC2 instance metadata service, IMDSv2 only (a session token first), at
///    `AWS_EC2_METADATA_SERVICE_ENDPOINT` (else `http://169.254.169.254`), unless
///    `AWS_EC2_METADATA_DISABLED=true`.
public enum S3CredentialSource: Sendable, Equatable, CustomStringConvertible {
    /// These credentials, as given.
    case fixed(S3Credentials)
    /// The AWS default chain, reading the variables above from `environment` (and the files they
    /// or `HOME` name) when credentials are needed.
    case awsDefaultChain(environment: [String: String])

    /// The fixed access key, or the words "the AWS default credential chain"; never a secret.
    public var description: String {
        switch self {
        case .fixed(let credentials): return credentials.description
        case .awsDefaultChain: return "the AWS default credential chain"
        }
    }
}
