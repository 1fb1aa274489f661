import Foundation
import Testing
import TestSupport

/// A store with no server of its own (a laptop, a phone) syncs both ways with `attach sync URL`:
/// its notes and the bytes of its originals go to the server, the server's edits come back.
@Suite("A device syncs both ways with attach sync", .serialized, .timeLimit(.minutes(3)))
struct DeviceSyncTests {
    static let token = "the-full-token-of-the-server"
    static let pushToken = "the-push-token-of-the-device"

    static func get(_ server: ServerProcess, _ path: String) async throws -> (status: Int, body: Data) {
        try await ServerProcess.request(server.url + path, method: "GET", body: nil, headers: ["Authorization": "Bearer \(token)"])
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("a CLI store's note and photo reach the server byte for byte; the server's edit comes back; nothing is sent twice")
    func deviceSyncsBothWays() async throws {
        let directory = try TemporaryDirectory("device")
        let (device, home) = (directory.appending("device"), directory.appending("home"))
        for store in [device, home] { try await Attach.initStore(store) }
        let photo = try Corpus.file("good/Dune.jpg")
        let imported = try await PeerSyncTests.importPhotos([photo.path(percentEncoded: false)], into: device)
        let id = imported.attachments[0]["id"] as! String

        let server = try await ServerProcess(store: home, port: try ServerProcess.freePort(),
                                             ["--token", Self.token, "--push-token", Self.pushToken])
        defer { server.process.kill() }

        let first = try await Attach.run(["sync", server.url, "--token", Self.pushToken, "--json"], store: device)
        #expect(first.exitCode == 0, "\(first.stderr)")
        let reports = first.stdout.split(separator: "\n").map(String.init)
        #expect(reports.count == 2, "one report for the push, one for the pull: \(first.stdout)")
        let pushed = try Self.json(reports[0])
        #expect(pushed["blobsSent"] as? Int == 1)
        #expect(pushed["bytesSent"] as? Int == (try Data(contentsOf: photo)).count)

        let (status, original) = try await Self.get(server, "/api/attachments/\(id)/original")
        #expect(status == 200)
        #expect(original == (try Data(contentsOf: photo)), "byte for byte")
        let note = try Self.json(String(decoding: try await Self.get(server, "/api/notes/\(imported.note)").body, as: UTF8.self))
        #expect(note["title"] as? String == "trip")

        // An edit on the server comes back on the next sync; the original does not travel again.
        let edit = try await ServerProcess.request(server.url + "/api/notes/\(imported.note)", method: "PATCH",
                                                   body: try JSONSerialization.data(withJSONObject: ["body": "written at home"]),
                                                   headers: ["Authorization": "Bearer \(Self.token)"])
        #expect(edit.status == 200)
        let second = try await Attach.run(["sync", server.url, "--token", Self.pushToken, "--json"], store: device)
        #expect(second.exitCode == 0, "\(second.stderr)")
        #expect(try Self.json(String(second.stdout.split(separator: "\n")[0]))["blobsSent"] as? Int == 0)
        let shown = try await Attach.run(["note", "show", imported.note, "--json"], store: device)
        #expect((try Self.json(shown.stdout)["note"] as? [String: Any])?["body"] as? String == "written at home", "\(shown.stdout)")

        // A token that may only read cannot push; the exit status says so.
        let refused = try await Attach.run(["sync", "push", server.url, "--token", Self.token + "-wrong"], store: device)
        #expect(refused.exitCode == 2 && refused.stderr.contains("401"), "\(refused.stderr)")
        #expect(try await Attach.run(["verify"], store: home).exitCode == 0)
    }

    @Test("a server its peer cannot reach pushes with --push originals: its note and photo reach the peer, the peer's notes come back")
    func serverBehindNATSyncsThroughPush() async throws {
        let directory = try TemporaryDirectory("nat")
        let (hidden, home) = (directory.appending("hidden"), directory.appending("home"))
        for store in [hidden, home] { try await Attach.initStore(store) }
        let photo = try Corpus.file("good/Aqua.jpg")
        let imported = try await PeerSyncTests.importPhotos([photo.path(percentEncoded: false)], into: hidden)
        let id = imported.attachments[0]["id"] as! String

        // Home has no --peer: it cannot reach the hidden server, which opens every connection.
        let homeServer = try await ServerProcess(store: home, port: try ServerProcess.freePort(),
                                                 ["--token", Self.token, "--push-token", Self.pushToken])
        let hiddenServer = try await ServerProcess(store: hidden, port: try ServerProcess.freePort(), [
            "--peer", homeServer.url, "--peer-token", Self.pushToken, "--push", "originals", "--sync-interval", "0.2",
        ])
        defer { for server in [homeServer, hiddenServer] { server.process.kill() } }

        try await ServerProcess.eventually(30, "the hidden server's photo to be at home") {
            try await Self.get(homeServer, "/api/attachments/\(id)/original").status == 200
        }
        #expect(try await Self.get(homeServer, "/api/attachments/\(id)/original").body == (try Data(contentsOf: photo)))
        let resource = try Self.json(String(decoding: try await Self.get(homeServer, "/api/attachments/\(id)").body, as: UTF8.self))
        #expect(resource["available"] as? Bool == true, "the bytes were pushed, not fetched on demand")

        let created = try await ServerProcess.request(homeServer.url + "/api/notes", method: "POST",
                                                      body: try JSONSerialization.data(withJSONObject: ["title": "made at home"]),
                                                      headers: ["Authorization": "Bearer \(Self.token)"])
        let homeNote = try #require(try Self.json(String(decoding: created.body, as: UTF8.self))["id"] as? String)
        try await ServerProcess.eventually(30, "home's note to reach the hidden server") {
            try await hiddenServer.get("/api/notes/\(homeNote)").status == 200
        }
    }

    @Test("two devices edit one note apart and sync through a server: different lines merge, the same line leaves a conflict copy, both devices agree; a delete on one is restored from the other's trash")
    func devicesEditApartThenAgree() async throws {
        let directory = try TemporaryDirectory("apart")
        let (phone, laptop, home) = (directory.appending("phone"), directory.appending("laptop"), directory.appending("home"))
        for store in [phone, laptop, home] { try await Attach.initStore(store) }
        let server = try await ServerProcess(store: home, port: try ServerProcess.freePort(),
                                             ["--token", Self.token, "--push-token", Self.pushToken])
        defer { server.process.kill() }
        let sync = { (store: URL) in
            let outcome = try await Attach.run(["sync", server.url, "--token", Self.pushToken], store: store)
            #expect(outcome.exitCode == 0, "\(outcome.stderr)")
        }
        let note = try await Attach.addNote("Beach day", store: phone)
        #expect(try await Attach.run(["note", "edit", note, "--body", "towels\nsunscreen\nsnacks"], store: phone).exitCode == 0)
        try await sync(phone)
        try await sync(laptop)
        let body = { (store: URL) async throws -> String in
            let shown = try await Attach.run(["note", "show", note, "--json"], store: store)
            return (try Self.json(shown.stdout)["note"] as? [String: Any])?["body"] as? String ?? ""
        }
        let titles = { (store: URL) async throws -> [String] in
            let listed = try await Attach.run(["note", "list", "--json"], store: store)
            let notes = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            return notes.compactMap { $0["title"] as? String }.sorted()
        }

        _ = try await Attach.run(["note", "edit", note, "--body", "beach towels\nsunscreen\nsnacks"], store: phone)
        _ = try await Attach.run(["note", "edit", note, "--body", "towels\nsunscreen\nsnacks and water"], store: laptop)
        for store in [phone, laptop, phone] { try await sync(store) }
        #expect(try await body(phone) == "beach towels\nsunscreen\nsnacks and water")
        #expect(try await body(laptop) == "beach towels\nsunscreen\nsnacks and water")
        #expect(try await titles(phone) == ["Beach day"], "no conflict copy for a clean merge")

        _ = try await Attach.run(["note", "edit", note, "--body", "beach towels\nfactor 50\nsnacks and water"], store: phone)
        try await Task.sleep(for: .milliseconds(5))
        _ = try await Attach.run(["note", "edit", note, "--body", "beach towels\nno sunscreen left\nsnacks and water"], store: laptop)
        for store in [phone, laptop, phone] { try await sync(store) }
        for store in [phone, laptop] {
            #expect(try await body(store) == "beach towels\nno sunscreen left\nsnacks and water", "the newer line stays")
            #expect(try await titles(store) == ["Beach day", "Beach day (conflict copy)"])
            let found = try await Attach.run(["note", "list", "--search", "factor", "--json"], store: store)
            #expect(found.stdout.contains("factor 50"), "the older line is in the copy, and found: \(found.stdout)")
        }

        #expect(try await Attach.run(["note", "rm", note], store: laptop).exitCode == 0)
        for store in [laptop, phone] { try await sync(store) }
        #expect(try await Attach.run(["trash", "list"], store: phone).stdout.contains("Beach day"))
        #expect(try await Attach.run(["trash", "restore", note], store: phone).exitCode == 0)
        for store in [phone, laptop] { try await sync(store) }
        #expect(try await body(laptop) == "beach towels\nno sunscreen left\nsnacks and water", "restored on the laptop too")
    }
}
