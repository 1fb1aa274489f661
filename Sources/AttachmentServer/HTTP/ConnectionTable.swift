import Logging
import NIOCore
import Synchronization

/// Every open connection of the server, by client address, and who gets a place when they
/// run short.
///
/// - One client address holds at most ``perClientLimit`` connections; one more is closed as it
///   arrives. The address is the socket peer's: a connection is accepted before any request (and
///   any `X-Forwarded-For`) arrives. A connection from one of the ``TrustedProxies`` is not
///   limited as one client, since it carries many; the proxy limits those.
/// - The server holds at most ``limit`` connections. At the limit a new connection takes the
///   place of an idle one (no request in progress): first of one that never passed the
///   credentials check, then of an authenticated one; among those, of the client holding the
///   most connections, its oldest first. Only when every connection is busy is the new one
///   closed. A flood of idle connections from one address therefore sheds its own, and never
///   keeps another address out.
/// - Refusals and sheds are counted in `attach_connections_refused_total{reason}` and
///   `attach_connections_shed_total{state}`, and logged at most once per ``logInterval`` each,
///   with how many the line stands for.
final class ConnectionTable: Sendable {
    /// Why a connection was closed by the server before it asked anything, or while it was idle.
    enum Closing: String, Sendable {
        /// Its client address already held ``ConnectionTable/perClientLimit`` connections.
        case clientLimit = "client_limit"
        /// The server held ``ConnectionTable/limit`` connections, every one busy.
        case serverFull = "server_full"
        /// Shed while idle and never authenticated, for a new connection.
        case shedUnauthenticated = "unauthenticated"
        /// Shed while idle (but authenticated), for a new connection.
        case shedAuthenticated = "authenticated"
    }

    /// One open connection: its client, whether a request is in progress on it, and whether one
    /// of its requests passed the credentials check.
    final class Entry: Sendable {
        let channel: any Channel
        /// The client address the per-client limit counts it under (`nil`: not limited).
        let client: String?
        /// When it was admitted, in admission order.
        let serial: UInt64
        private let requests = Atomic<Int>(0)
        private let authenticated = Atomic<Bool>(false)

        init(channel: any Channel, client: String?, serial: UInt64) {
            (self.channel, self.client, self.serial) = (channel, client, serial)
        }

        /// Whether no request is in progress.
        var isIdle: Bool { requests.load(ordering: .relaxed) == 0 }
        /// Whether a request on it passed the credentials check.
        var isAuthenticated: Bool { authenticated.load(ordering: .relaxed) }

        /// A request head arrived.
        func requestBegan() { requests.add(1, ordering: .relaxed) }
        /// A request's answer was written to its end. (Only the connection's event loop counts,
        /// so a load and a store do not race.)
        func requestEnded() {
            let open = requests.load(ordering: .relaxed)
            if open > 0 { requests.store(open - 1, ordering: .relaxed) }
        }
        /// A request passed the credentials check.
        func markAuthenticated() { authenticated.store(true, ordering: .relaxed) }
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        var perClient: [String: Int] = [:]
        var serial: UInt64 = 0
    }

    /// The most connections held at once.
    let limit: Int
    /// The most connections one client address holds at once.
    let perClientLimit: Int
    /// How often each kind of refusal may be logged.
    static let logInterval: Duration = .seconds(10)

    private let exempt: TrustedProxies
    private let metrics: ServerMetrics
    private let logger: Logger
    private let state = Mutex(State())
    private let logThrottles: [Closing: LogThrottle] = [
        .clientLimit: LogThrottle(interval: logInterval), .serverFull: LogThrottle(interval: logInterval),
        .shedUnauthenticated: LogThrottle(interval: logInterval), .shedAuthenticated: LogThrottle(interval: logInterval),
    ]

    /// A table for at most `limit` connections, `perClientLimit` per client address except from
    /// the proxies `exempt`, counting in `metrics` and logging to `logger`.
    init(limit: Int, perClientLimit: Int, exempt: TrustedProxies, metrics: ServerMetrics, logger: Logger) {
        (self.limit, self.perClientLimit, self.exempt, self.metrics, self.logger) = (limit, perClientLimit, exempt, metrics, logger)
    }

    /// How many connections are held now.
    var count: Int { state.withLock { $0.entries.count } }

    /// Takes `channel` in, shedding an idle connection when the server is full; `nil` when it
    /// must be closed at once.
    func admit(_ channel: any Channel) -> Entry? {
        let address = channel.remoteAddress?.ipAddress
        let client = address.flatMap { exempt.contains($0) ? nil : $0 }
        let (entry, shed, refusal): (Entry?, Entry?, Closing?) = state.withLock { state in
            if let client, state.perClient[client, default: 0] >= perClientLimit { return (nil, nil, .clientLimit) }
            var shed: Entry?
            if state.entries.count >= limit {
                guard let victim = Self.victim(in: state) else { return (nil, nil, .serverFull) }
                Self.remove(victim, from: &state)
                shed = victim
            }
            state.serial += 1
            let entry = Entry(channel: channel, client: client, serial: state.serial)
            state.entries[ObjectIdentifier(channel)] = entry
            if let client { state.perClient[client, default: 0] += 1 }
            return (entry, shed, nil)
        }
        if let refusal {
            record(refusal, address: address, metric: "attach_connections_refused_total", dimension: "reason")
        }
        if let shed {
            shed.channel.close(promise: nil)
            record(shed.isAuthenticated ? .shedAuthenticated : .shedUnauthenticated, address: shed.channel.remoteAddress?.ipAddress,
                   metric: "attach_connections_shed_total", dimension: "state")
        }
        return entry
    }

    /// Forgets `entry`, whose connection has closed (once; a shed entry is already gone).
    func remove(_ entry: Entry) {
        state.withLock { state in
            guard state.entries[ObjectIdentifier(entry.channel)] === entry else { return }
            Self.remove(entry, from: &state)
        }
    }

    /// Marks the connection `channel` as authenticated: a request on it passed the credentials check.
    func markAuthenticated(_ channel: any Channel) {
        state.withLock { $0.entries[ObjectIdentifier(channel)] }?.markAuthenticated()
    }

    private static func remove(_ entry: Entry, from state: inout State) {
        state.entries[ObjectIdentifier(entry.channel)] = nil
        guard let client = entry.client, let held = state.perClient[client] else { return }
        state.perClient[client] = held > 1 ? held - 1 : nil
    }

    /// The idle connection to shed: unauthenticated before authenticated, then of the client
    /// holding the most, then the oldest.
    private static func victim(in state: State) -> Entry? {
        func rank(_ entry: Entry) -> (Int, Int, UInt64) {
            (entry.isAuthenticated ? 1 : 0, -(entry.client.map { state.perClient[$0, default: 0] } ?? 1), entry.serial)
        }
        var best: (entry: Entry, rank: (Int, Int, UInt64))?
        for entry in state.entries.values where entry.isIdle {
            let rank = rank(entry)
            if let current = best, !(rank < current.rank) { continue }
            best = (entry, rank)
        }
        return best?.entry
    }

    private func record(_ closing: Closing, address: String?, metric: String, dimension: String) {
        metrics.count(metric, by: 1, dimensions: [(dimension, closing.rawValue)])
        guard let events = logThrottles[closing]?.record() else { return }
        let message: Logger.Message = switch closing {
        case .clientLimit: "connection refused: too many from one client address"
        case .serverFull: "connection refused: the server is full and every connection is busy"
        case .shedUnauthenticated, .shedAuthenticated: "idle connection closed to make room"
        }
        logger.warning(message, metadata: [
            "reason": "\(closing.rawValue)", "client.address": "\(address ?? "unknown")", "events": "\(events)",
            "events.interval_s": "\(Self.logInterval.components.seconds)",
        ])
    }
}
