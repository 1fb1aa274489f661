import Foundation
import Testing
import TestSupport

/// Changes reach a peered server as they are made: its sync request is held by the peer until
/// there is a change (`GET /sync/changes?wait=`), not repeated every `--sync-interval`.
@Suite("Live sync between real servers", .serialized, .timeLimit(.minutes(3)))
struct LiveSyncTests {
    /// Creates a note on `server` through the API; returns its id.
    static func createNote(on server: ServerProcess, title: String) async throws -> String {
        let (status, body) = try await ServerProcess.request(server.url + "/api/notes", method: "POST",
                                                             body: try JSONSerialization.data(withJSONObject: ["title": title]))
        guard status == 201, let object = try JSONSerialization.jsonObject(with: body) as? [String: Any], let id = object["id"] as? String else {
            throw ServerProcess.Failed(message: "POST /api/notes answered \(status)")
        }
        return id
    }

    @Test("with --sync-interval 60 a note made on A is on B within seconds, three times in a row: B's request was held by A")
    func changesArriveAsTheyAreMade() async throws {
        let directory = try TemporaryDirectory("live")
        let (sa, sb) = (directory.appending("a"), directory.appending("b"))
        for store in [sa, sb] { try await Attach.initStore(store) }
        let a = try await ServerProcess(store: sa, port: try ServerProcess.freePort())
        let b = try await ServerProcess(store: sb, port: try ServerProcess.freePort(), ["--peer", a.url, "--sync-interval", "60"])
        defer { for server in [a, b] { server.process.kill() } }
        try await Task.sleep(for: .seconds(1))  // B's first round has found A empty and is held

        for round in 1...3 {
            let start = ContinuousClock.now
            let id = try await Self.createNote(on: a, title: "live \(round)")
            try await ServerProcess.eventually(50, "note \(round) to reach B") { try await b.get("/api/notes/\(id)").status == 200 }
            let took = ContinuousClock.now - start
            #expect(took < .seconds(10), "round \(round) took \(took); polling every 60 s would not bring it this soon")
        }
    }

    @Test("a server shutting down answers the sync requests it holds at once and exits")
    func shutdownAnswersHeldRequests() async throws {
        let directory = try TemporaryDirectory("held")
        try await Attach.initStore(directory.appending("a"))
        let a = try await ServerProcess(store: directory.appending("a"), port: try ServerProcess.freePort())
        defer { a.process.kill() }
        let position = try await a.json("/sync/changes")["nextSequence"] as? Int ?? 0
        let held = Task { try await ServerProcess.request(a.url + "/sync/changes?since=\(position)&wait=50", method: "GET", body: nil) }
        try await Task.sleep(for: .seconds(1))
        let start = ContinuousClock.now
        await a.stop(SIGTERM)
        let took = ContinuousClock.now - start
        #expect(took < .seconds(20), "the 50 s hold did not keep the server up: \(took)")
        let (status, body) = try await held.value
        #expect(status == 200)
        let batch = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect((batch["changes"] as? [Any])?.isEmpty == true)
    }
}
