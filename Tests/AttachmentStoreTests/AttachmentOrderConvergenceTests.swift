import AttachmentStore
import Foundation
import Testing
import TestSupport

/// A note's attachments end in one order on every peer, with no two at one position, whatever
/// adds, moves and deletes were made concurrently on different peers and in whatever order the
/// peers then pulled from each other.
@Suite("Attachment order converges across peers", .timeLimit(.minutes(8)))
struct AttachmentOrderConvergenceTests {
    /// Pulls between every ordered pair until a full pass changes nothing on any peer.
    /// Pulls what `from` changed since `to` last pulled from it (the cursor a real sync keeps), a
    /// few changes per page: the rounds of the randomized test cost what changed, not the whole feed.
    static func pullNew(_ to: AttachmentStore, from: AttachmentStore) async throws {
        var sequence = try await to.syncCursor(forPeer: from.peerID)
        while true {
            let batch = try await from.changes(since: sequence, limit: 3)
            _ = try await to.apply(batch)
            sequence = batch.nextSequence
            if !batch.hasMore { break }
        }
        try await to.setSyncCursor(sequence, forPeer: from.peerID)
    }

    static func settle(_ stores: [AttachmentStore]) async throws {
        for _ in 0..<10 {
            let before = try await stores.asyncMap { try await $0.changeFeedPosition() }
            for to in stores { for from in stores where from !== to { try await Self.pullNew(to, from: from) } }
            let after = try await stores.asyncMap { try await $0.changeFeedPosition() }
            if before == after { return }
        }
        Issue.record("the peers kept changing after ten passes: sync does not settle")
    }

    /// Each peer's notes with their attachments' ids in order, checking on the way that each
    /// note's attachments report the positions 0..<count.
    static func state(of store: AttachmentStore) async throws -> [String: [String]] {
        var state: [String: [String]] = [:]
        for note in try await store.notes(limit: 1000) {
            let attachments = try await store.attachments(of: note.id)
            #expect(attachments.map(\.position) == Array(attachments.indices), "positions of note \(note.id) on \(store.peerID)")
            for (index, attachment) in attachments.enumerated() {
                #expect(try await store.attachment(attachment.id).position == index, "one attachment's own position agrees with the list")
            }
            let paged = try await store.attachments(of: note.id, after: 1, limit: 2)
            #expect(paged.map(\.id) == Array(attachments.dropFirst(2).prefix(2).map(\.id)), "a page after position 1")
            state[note.id.rawValue] = attachments.map(\.id.rawValue) + ["title: \(note.title)", "body: \(note.body)"]
        }
        return state
    }

    @Test("three peers add to one note at once: after syncing in any order they list the same attachments in the same order at distinct positions")
    func concurrentAddsConverge() async throws {
        let fixtures = try await [StoreFixture("a"), StoreFixture("b"), StoreFixture("c")]
        let stores = fixtures.map(\.store)
        let note = try await stores[0].createNote(title: "shared")
        try await Self.settle(stores)
        for (index, store) in stores.enumerated() {
            for photo in 0..<2 { _ = try await store.addAttachment(to: note.id, data: Data("\(index)-\(photo)".utf8), filename: "p\(index)\(photo).txt") }
        }
        // Before syncing, each peer has its two at positions 0 and 1: six attachments claim two positions.
        try await SyncCoreTests.pull(stores[1], from: stores[2])
        try await SyncCoreTests.pull(stores[0], from: stores[1])
        try await Self.settle(stores)
        let states = try await stores.asyncMap { try await Self.state(of: $0) }
        #expect(states[0][note.id.rawValue]?.count == 8)
        #expect(states[0] == states[1] && states[1] == states[2], "\(states)")

        // A move on one peer makes the stored positions dense again, and that syncs too.
        let first = try #require(try await stores[2].attachments(of: note.id).first)
        try await stores[2].moveAttachment(first.id, to: 5)
        try await Self.settle(stores)
        let moved = try await stores.asyncMap { try await Self.state(of: $0) }
        #expect(moved[0] == moved[1] && moved[1] == moved[2])
        #expect(try await stores[0].attachments(of: note.id)[5].id == first.id)
    }

    @Test("randomized: three peers add, move, delete and edit concurrently, syncing now and then in random pairs; afterwards they agree", arguments: [1, 2, 3])
    func randomizedOperationsConverge(seed: Int) async throws {
        var random = SplitMix(seed: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15)
        let fixtures = try await [StoreFixture("a"), StoreFixture("b"), StoreFixture("c")]
        let stores = fixtures.map(\.store)
        let notes = [try await stores[0].createNote(title: "one"), try await stores[0].createNote(title: "two")].map(\.id)
        try await Self.settle(stores)
        var added: Set<String> = []
        var deleted: Set<String> = []
        for step in 0..<150 {
            let store = stores[Int(random.next() % 3)]
            let note = notes[Int(random.next() % 2)]
            let here = try await store.attachments(of: note)
            switch random.next() % 10 {
            case 0...3:
                let attachment = try await store.addAttachment(to: note, data: Data("step \(step)".utf8), filename: "s\(step).txt")
                added.insert(attachment.id.rawValue)
            case 4...5 where !here.isEmpty:
                let attachment = here[Int(random.next() % UInt64(here.count))]
                try await store.moveAttachment(attachment.id, to: Int(random.next() % UInt64(here.count + 1)))
            case 6 where !here.isEmpty:
                let attachment = here[Int(random.next() % UInt64(here.count))]
                try await store.deleteAttachment(attachment.id)
                deleted.insert(attachment.id.rawValue)
            case 7:
                _ = try await store.updateNote(note, body: "edited at step \(step)")
            default:
                let other = stores[Int(random.next() % 3)]
                if other !== store { try await Self.pullNew(store, from: other) }
            }
        }
        try await Self.settle(stores)
        let states = try await stores.asyncMap { try await Self.state(of: $0) }
        #expect(states[0] == states[1] && states[1] == states[2], "seed \(seed): \(states)")
        let kept = Set(states[0].values.flatMap { $0 }.filter { !$0.hasPrefix("title: ") && !$0.hasPrefix("body: ") })
        #expect(kept == added.subtracting(deleted), "every attachment added and never deleted is on every peer, and nothing else")
    }
}
