/// The tokens a server accepts and the scope each grants. With no full token the server is
/// open (it then listens on loopback only, see ``ServerConfiguration/validate()``).
struct AccessTokens: Sendable {
    /// The token that grants ``AccessScope/full``, or `nil` for an open server.
    let full: String?
    /// The token that grants ``AccessScope/syncRead`` only, if any.
    let syncRead: String?
    /// The token that grants ``AccessScope/syncPush``, if any.
    var syncPush: String? = nil

    /// Whether requests need credentials at all.
    var areRequired: Bool { full != nil }

    /// The scope `presented` grants, or `nil` when it is no token of this server. Compares in
    /// constant time, so the time taken does not tell how much of a guess was right.
    func scope(of presented: String) -> AccessScope? {
        let bytes = Array(presented.utf8)
        if let full, Self.constantTimeEqual(bytes, Array(full.utf8)) { return .full }
        if let syncRead, Self.constantTimeEqual(bytes, Array(syncRead.utf8)) { return .syncRead }
        if let syncPush, Self.constantTimeEqual(bytes, Array(syncPush.utf8)) { return .syncPush }
        return nil
    }

    /// Compares without stopping at the first difference.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
