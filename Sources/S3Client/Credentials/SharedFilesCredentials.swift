import Foundation

/// Credentials from a profile of the shared AWS files: `~/.aws/credentials` (sections named
/// `[NAME]`) and `~/.aws/config` (sections `[profile NAME]`, or `[default]`). Keys in the
/// credentials file win over keys in the config file. A profile may instead name a role and
/// a web identity token file.
enum SharedFilesCredentials {
    /// The provider for profile `AWS_PROFILE` (else `default`); `nil` when the default profile
    /// is wanted and neither file has it.
    /// - Throws: ``S3ClientError/credentialsUnavailable(source:reason:)`` when a profile named
    ///   by `AWS_PROFILE` is in neither file, a file cannot be parsed, or the profile has an
    ///   access key without its secret.
    static func provider(environment: [String: String], http: CredentialHTTP) throws(S3ClientError) -> (any CredentialProvider)? {
        let named = environment.nonEmpty("AWS_PROFILE")
        let profile = named ?? "default"
        let credentialsPath = environment.expandingTilde(environment.nonEmpty("AWS_SHARED_CREDENTIALS_FILE") ?? "~/.aws/credentials")
        let configPath = environment.expandingTilde(environment.nonEmpty("AWS_CONFIG_FILE") ?? "~/.aws/config")
        let fromCredentials = try IniFile.read(credentialsPath)?.sections[profile]
        let fromConfig = try IniFile.read(configPath).flatMap { $0.sections["profile \(profile)"] ?? (profile == "default" ? $0.sections["default"] : nil) }
        let source = "profile \"\(profile)\" of \(credentialsPath) and \(configPath)"
        guard fromCredentials != nil || fromConfig != nil else {
            if named == nil { return nil }
            throw .credentialsUnavailable(source: source, reason: "AWS_PROFILE names a profile that neither file has")
        }
        let settings = (fromConfig ?? [:]).merging(fromCredentials ?? [:]) { _, credentials in credentials }
        if let access = settings["aws_access_key_id"] {
            guard let secret = settings["aws_secret_access_key"], !secret.isEmpty, !access.isEmpty else {
                throw .credentialsUnavailable(source: source, reason: "aws_access_key_id is set without aws_secret_access_key")
            }
            let credentials = S3Credentials(accessKeyID: access, secretAccessKey: secret,
                                            sessionToken: settings["aws_session_token"].flatMap { $0.isEmpty ? nil : $0 })
            return FixedProvider(name: source, credentials: credentials)
        }
        if let role = settings["role_arn"], let tokenFile = settings["web_identity_token_file"] {
            return WebIdentityCredentials(tokenFile: environment.expandingTilde(tokenFile), roleARN: role,
                                          sessionName: settings["role_session_name"], environment: environment, http: http)
        }
        throw .credentialsUnavailable(
            source: source,
            reason: "the profile has neither aws_access_key_id and aws_secret_access_key nor role_arn and web_identity_token_file")
    }
}

/// Credentials read once from a file.
struct FixedProvider: CredentialProvider {
    let name: String
    let credentials: S3Credentials

    func fetch() async throws(S3ClientError) -> S3Credentials { credentials }
}

/// The INI dialect of the AWS shared files: `[section]` headers, `key = value` lines, `#` and
/// `;` comments on their own lines, indented lines continuing a nested setting (ignored here).
struct IniFile: Equatable {
    /// The sections by name (`profile work`, `default`), each its keys and values.
    var sections: [String: [String: String]] = [:]

    /// The largest shared file read; real ones are a few KiB.
    static let maxSize = 1 << 20

    /// The file at `path`, or `nil` when there is none.
    /// - Throws: ``S3ClientError/credentialsUnavailable(source:reason:)`` when it exists but
    ///   cannot be read, is too large, or a line is neither a header, a setting nor a comment.
    static func read(_ path: String) throws(S3ClientError) -> IniFile? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .credentialsUnavailable(source: path, reason: "the file exists but cannot be read")
        }
        guard data.count <= maxSize else {
            throw .credentialsUnavailable(source: path, reason: "the file is larger than \(maxSize) bytes")
        }
        return try parse(String(decoding: data, as: UTF8.self), path: path)
    }

    /// `text` parsed; `path` names it in errors.
    static func parse(_ text: String, path: String) throws(S3ClientError) -> IniFile {
        var file = IniFile()
        var section: String?
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if rawLine.first?.isWhitespace == true { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else {
                    throw .credentialsUnavailable(source: path, reason: "line \(index + 1): a section header without its ]")
                }
                let name = line.dropFirst().dropLast().split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                section = name
                if file.sections[name] == nil { file.sections[name] = [:] }
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw .credentialsUnavailable(source: path, reason: "line \(index + 1) is neither [section] nor key = value")
            }
            guard let section else {
                throw .credentialsUnavailable(source: path, reason: "line \(index + 1): a setting before any [section]")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            guard !key.isEmpty else {
                throw .credentialsUnavailable(source: path, reason: "line \(index + 1) has a value but no key")
            }
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            file.sections[section, default: [:]][key] = value
        }
        return file
    }
}
