@testable import AttachmentStore
import Foundation
import Testing

/// Clock readings as values (order, raw form, coding, parsing) and the hybrid clock's merging,
/// beyond ``HybridClockTests``; and the bound on a peer's reading, which lives in
/// ``SyncChangeValidation`` rather than in the clock.
@Suite("Clock stamps")
struct ClockStampTests {
    static var nowMilliseconds: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
    static let peerID = "0c4f6e0a-1b2c-4d5e-8f90-a1b2c3d4e5f6"

    @Test("for well-formed readings, string order is the order of (milliseconds, counter, peer)")
    func orderMatchesFields() {
        var fields: [(Int64, Int, String)] = []
        for milliseconds: Int64 in [0, 9, 10, 1_790_000_000_000, 9_999_999_999_999] {
            for counter in [0, 9, 10, 999_999] {
                for peer in ["a", "a-b", "aa", "b", "B"] { fields.append((milliseconds, counter, peer)) }
            }
        }
        for lhs in fields {
            for rhs in fields {
                let a = ClockStamp(milliseconds: lhs.0, counter: lhs.1, peer: lhs.2)
                let b = ClockStamp(milliseconds: rhs.0, counter: rhs.1, peer: rhs.2)
                #expect((a < b) == (lhs < rhs), "\(a) < \(b)")
                #expect((a == b) == (lhs == rhs))
            }
        }
    }

    @Test("a raw value survives the round trip unchanged, whatever it holds", arguments: [
        "", "0000000000001-000002-peer", "not a stamp", "0000000000001-000002-", "émoji 😀-1-2",
    ])
    func rawValueRoundTrip(raw: String) throws {
        let stamp = ClockStamp(rawValue: raw)
        #expect(stamp.rawValue == raw && stamp.description == raw)
        #expect(ClockStamp(rawValue: stamp.rawValue) == stamp)
        #expect(Set([stamp, ClockStamp(rawValue: raw)]).count == 1)
        let json = try JSONEncoder().encode([stamp])
        #expect(try JSONDecoder().decode([String].self, from: json) == [raw], "encoded as a plain string")
        #expect(try JSONDecoder().decode([ClockStamp].self, from: json) == [stamp])
    }

    @Test("a reading made from its fields gives them back through its raw value")
    func fieldsRoundTrip() {
        let stamp = ClockStamp(milliseconds: 1_790_000_000_123, counter: 45, peer: Self.peerID)
        #expect(stamp.rawValue == "1790000000123-000045-" + Self.peerID)
        let parts = ClockStamp(rawValue: stamp.rawValue).parts
        #expect(parts?.milliseconds == 1_790_000_000_123 && parts?.counter == 45)
    }

    @Test("a JSON value that is not a string does not decode as a reading")
    func decodingRefusesNonStrings() {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([ClockStamp].self, from: Data("[1790000000123]".utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([ClockStamp].self, from: Data("[null]".utf8)) }
    }

    @Test("a reading without a peer id, or with numbers too large, has no parts", arguments: [
        "0000000000001-000002-", "0000000000001-000002", "99999999999999999999-000000-p", "0000000000001-99999999999999999999-p",
        "0000000000001 000002 p",
    ])
    func malformedParts(raw: String) {
        #expect(ClockStamp(rawValue: raw).parts == nil)
    }

    @Test("the origin sorts before every reading, even the smallest")
    func originFirst() {
        #expect(ClockStamp.origin.rawValue.isEmpty)
        #expect(ClockStamp.origin < ClockStamp(rawValue: "0"))
        #expect(ClockStamp.origin < ClockStamp(milliseconds: 0, counter: 0, peer: ""))
        #expect(!(ClockStamp.origin < ClockStamp.origin))
        #expect(HybridClock(peer: "p", latest: .origin).tick().parts?.counter == 0, "the origin moves no clock")
    }

    @Test("a clock held ahead of the wall clock counts up in the same millisecond, never back", .timeLimit(.minutes(3)))
    func neverBackwards() {
        let ahead = Self.nowMilliseconds + 60_000
        let clock = HybridClock(peer: "local", latest: nil)
        clock.observe(ClockStamp(milliseconds: ahead, counter: 5, peer: "remote"))
        clock.observe(ClockStamp(milliseconds: ahead, counter: 3, peer: "remote"))   // a lower counter: kept at 5
        clock.observe(ClockStamp(milliseconds: ahead - 1, counter: 900, peer: "remote"))   // an older reading: ignored
        let readings = (0..<100).map { _ in clock.tick() }
        #expect(readings.map { $0.parts?.milliseconds } == Array(repeating: ahead, count: 100))
        #expect(readings.map { $0.parts?.counter } == Array(6...105))
        #expect(readings.allSatisfy { $0.rawValue.hasSuffix("-local") }, "a reading carries this clock's peer, not the observed one")
        clock.observe(ClockStamp(milliseconds: ahead, counter: 500, peer: "remote"))
        #expect(clock.tick().parts?.counter == 501, "a higher counter in the same millisecond is adopted")
    }

    @Test("readings taken by many tasks at once are all distinct", .timeLimit(.minutes(3)))
    func concurrentTicksAreDistinct() async {
        let clock = HybridClock(peer: "local", latest: nil)
        let readings = await withTaskGroup(of: [ClockStamp].self) { group in
            for _ in 0..<8 { group.addTask { (0..<250).map { _ in clock.tick() } } }
            return await group.reduce(into: [ClockStamp]()) { $0 += $1 }
        }
        #expect(Set(readings).count == 2000)
    }

    @Test("the clock itself adopts any well-formed reading, however far ahead; a peer's is bounded by validation first")
    func farFutureBound() {
        let now = Date()
        let nowMs = Int64(now.timeIntervalSince1970 * 1000)
        let validation = SyncChangeValidation(limits: PeerInputLimits(), now: now)
        #expect(validation.latestAllowed == nowMs + 300_000)
        #expect(validation.clock(ClockStamp(milliseconds: nowMs + 300_000, counter: 0, peer: Self.peerID)) == nil)
        let tooFar = ClockStamp(milliseconds: nowMs + 300_001, counter: 0, peer: Self.peerID)
        #expect(validation.clock(tooFar)?.contains("ahead of this machine's clock") == true)
        var strict = PeerInputLimits()
        strict.maxClockSkew = .milliseconds(1500)
        #expect(SyncChangeValidation(limits: strict, now: now).latestAllowed == nowMs + 1500)

        let clock = HybridClock(peer: "local", latest: nil)
        let decade = ClockStamp(milliseconds: nowMs + 10 * 365 * 86_400_000, counter: 0, peer: "remote")
        clock.observe(decade)
        #expect(clock.tick().parts?.milliseconds == decade.parts?.milliseconds)
    }

    @Test("a peer's reading must be 13 digits, 6 digits and a peer id of 1 to 64 letters, digits or dashes", arguments: [
        ("1790000000000-000000-" + peerID, true), ("0000000000000-999999-a", true),
        ("1790000000000-000000-" + String(repeating: "z", count: 64), true),
        ("179000000000-000000-p", false), ("01790000000000-000000-p", false), ("1790000000000-00000-p", false),
        ("1790000000000-0000000-p", false), ("1790000000000-000000-", false), ("1790000000000-000000-p_q", false),
        ("1790000000000-000000-" + String(repeating: "z", count: 65), false), ("+790000000000-000000-p", false),
        ("1790000000000-+00000-p", false), ("", false), ("1790000000000-000000-pé", false),
    ] as [(String, Bool)])
    func peerReadingShape(raw: String, valid: Bool) {
        let validation = SyncChangeValidation(limits: PeerInputLimits(), now: Date(timeIntervalSince1970: 1_800_000_000))
        #expect((validation.clock(ClockStamp(rawValue: raw)) == nil) == valid, "\(raw)")
    }

    @Test("a peer's reading with the largest counter, ahead of our clock, is followed by a well-formed reading that sorts after it")
    func counterCarriesIntoTheMillisecond() {
        let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
        // What a hostile (or very busy) peer may send: valid, five minutes ahead, counter at its maximum.
        let remote = ClockStamp(milliseconds: nowMs + 299_000, counter: ClockStamp.maximumCounter, peer: "remote")
        #expect(SyncChangeValidation(limits: PeerInputLimits()).clock(remote) == nil)
        let clock = HybridClock(peer: Self.peerID, latest: nil)
        clock.observe(remote)
        let next = clock.tick()
        #expect(next > remote, "\(next) must win over \(remote)")
        #expect(next.parts?.milliseconds == nowMs + 299_001 && next.parts?.counter == 0)
        #expect(SyncChangeValidation(limits: PeerInputLimits()).clock(next) == nil, "every peer accepts the next reading")
        #expect(clock.tick() > next)
    }

    @Test("a reading this store makes passes a peer's validation")
    func localReadingsAreValid() {
        let clock = HybridClock(peer: Self.peerID, latest: nil)
        let validation = SyncChangeValidation(limits: PeerInputLimits())
        for _ in 0..<10 { #expect(validation.clock(clock.tick()) == nil) }
    }
}
