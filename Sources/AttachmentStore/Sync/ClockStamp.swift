import Foundation
import Synchronization

/// A hybrid logical clock reading: wall-clock milliseconds, a counter for events within the
/// same millisecond, and the peer that made it. Readings sort as strings in time order, the
/// peer id breaking ties, so "last writer wins" is a plain comparison.
public struct ClockStamp: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// `<13-digit milliseconds>-<6-digit counter>-<peer id>`.
    public let rawValue: String

    /// Wraps a reading received from a peer or read from the catalog.
    public init(rawValue: String) { self.rawValue = rawValue }

    init(milliseconds: Int64, counter: Int, peer: String) {
        rawValue = String(format: "%013lld-%06d-", milliseconds, counter) + peer
    }

    /// The largest counter a reading has (six digits); past it the clock moves to the next
    /// millisecond, so readings keep their shape and their order.
    static let maximumCounter = 999_999

    /// The reading every record predating the clock has: older than any real reading.
    static let origin = ClockStamp(rawValue: "")

    /// Milliseconds and counter, when the reading is well formed.
    var parts: (milliseconds: Int64, counter: Int)? {
        let fields = rawValue.split(separator: "-", maxSplits: 2)
        guard fields.count == 3, let milliseconds = Int64(fields[0]), let counter = Int(fields[1]) else { return nil }
        return (milliseconds, counter)
    }

    public var description: String { rawValue }

    public static func < (lhs: ClockStamp, rhs: ClockStamp) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// This store's hybrid logical clock: monotonic even when the wall clock steps back, and
/// never behind any reading it has seen from a peer.
final class HybridClock: Sendable {
    private struct State {
        var milliseconds: Int64 = 0
        var counter = 0
    }

    /// The peer id written into every reading.
    let peer: String
    private let state = Mutex(State())

    init(peer: String, latest: ClockStamp?) {
        self.peer = peer
        if let latest { observe(latest) }
    }

    /// A new reading for a local change.
    func tick() -> ClockStamp {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        return state.withLock { state in
            if now > state.milliseconds {
                state.milliseconds = now
                state.counter = 0
            } else if state.counter >= ClockStamp.maximumCounter {
                // A peer's reading can leave the counter at its last value: carry into the
                // millisecond rather than write a seven-digit counter that sorts too early.
                state.milliseconds += 1
                state.counter = 0
            } else {
                state.counter += 1
            }
            return ClockStamp(milliseconds: state.milliseconds, counter: state.counter, peer: peer)
        }
    }

    /// Moves the clock past a reading received from a peer.
    func observe(_ stamp: ClockStamp) {
        guard let (milliseconds, counter) = stamp.parts else { return }
        state.withLock { state in
            if milliseconds > state.milliseconds {
                state.milliseconds = milliseconds
                state.counter = counter
            } else if milliseconds == state.milliseconds {
                state.counter = max(state.counter, counter)
            }
        }
    }
}
