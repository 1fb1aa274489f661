import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TestSupport

/// Many clients at once against a real `attach serve` for a while: uploads of real photos
/// mixed with thumbnail and original reads. Run by `make soak` (`ATTACH_SOAK_SECONDS=60`);
/// without that variable it is not run.
@Suite("Load", .serialized, .timeLimit(.minutes(5)))
struct LoadTests {
    /// How long the load lasts: `$ATTACH_SOAK_SECONDS`; the test is off without it.
    static let seconds = ProcessInfo.processInfo.environment["ATTACH_SOAK_SECONDS"].flatMap { Int($0) }
    /// Clients sending requests at once, each waiting for its answer before the next.
    static let clients = 50

    @Test("50 clients uploading and reading for a while get no error, lose nothing, and the server's memory stays flat",
          .enabled(if: LoadTests.seconds != nil, "set ATTACH_SOAK_SECONDS (make soak)"))
    func sustainedLoadHasNoErrorsAndFlatMemory() async throws {
        let duration = max(4, Self.seconds ?? 10)
        let warmUp = max(2, duration / 6)
        let directory = try TemporaryDirectory("load")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let note = try await Attach.addNote("load", store: store)
        let photos = try Corpus.files(in: "good").filter { $0.pathExtension == "jpg" && (try? $0.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0) ?? 0 < 3 << 20 }
            .map { (name: $0.lastPathComponent, data: try Data(contentsOf: $0)) }
        let seeded = try await Attach.run(["import", "--json", "--note", note]
            + photos.map { try Corpus.file("good/\($0.name)").path(percentEncoded: false) }, store: store)
        #expect(seeded.exitCode == 0, "\(seeded.stderr)")
        let readable = Attach.importedLines(seeded.stdout).compactMap { $0.attachment["id"] as? String }

        let server = try await ServerProcess(store: store, port: try ServerProcess.freePort())
        let client = LoadClient(server: server.url)
        let start = ContinuousClock.now
        let results: [LoadClient.Tally]
        var rss: (warm: Int, end: Int) = (0, 0)
        do {
            async let tallies = withThrowingTaskGroup(of: LoadClient.Tally.self) { group in
                for _ in 0..<Self.clients {
                    group.addTask {
                        await client.run(until: start + .seconds(duration), note: note, photos: photos, readable: readable)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            try await Task.sleep(until: start + .seconds(warmUp))
            rss.warm = Self.residentBytes(of: server.process.pid)
            results = try await tallies
            rss.end = Self.residentBytes(of: server.process.pid)
        } catch {
            await server.stop()
            throw error
        }

        var total = LoadClient.Tally()
        for tally in results { total.add(tally) }
        #expect(total.failures.isEmpty, "\(total.failures.count) failed requests: \(total.failures.prefix(5))")
        #expect(total.uploads > 0 && total.reads > 0)
        #expect(rss.warm > 0 && rss.end > 0)
        #expect(Double(rss.end) <= 1.2 * Double(rss.warm), "RSS grew from \(rss.warm) to \(rss.end) bytes after the warm-up")

        // Every acknowledged upload is there, byte for byte.
        var lost = 0
        do {
            for (id, hash) in total.stored {
                let (status, body) = try await server.get("/api/attachments/\(id)/original")
                if status != 200 || HTTP.sha256(body) != hash { lost += 1 }
            }
        } catch {
            await server.stop()
            throw error
        }
        #expect(lost == 0, "\(lost) acknowledged uploads are missing or different")
        await server.stop()
        let verify = try await Attach.run(["verify"], store: store)
        #expect(verify.exitCode == 0, "\(verify.stdout)\(verify.stderr)")
        print("soak figures: test=load seconds=\(duration) clients=\(Self.clients) requests=\(total.requests) uploads=\(total.uploads) "
              + "reads=\(total.reads) failures=\(total.failures.count) uploads-lost=\(lost) "
              + "rss-warm=\(rss.warm) rss-end=\(rss.end) warm-up=\(warmUp)s verify=\(verify.exitCode.map(String.init) ?? "signal")")
    }

    /// `VmRSS` of process `pid`, in bytes (0 when unreadable).
    static func residentBytes(of pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes * 1024
    }
}

/// One load client's loop, over its own connection pool sized for every client at once.
struct LoadClient: Sendable {
    let server: String
    let session: URLSession

    init(server: String) {
        self.server = server
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = LoadTests.clients + 4
        configuration.timeoutIntervalForRequest = 60
        session = URLSession(configuration: configuration)
    }

    /// What one client did.
    struct Tally: Sendable {
        var requests = 0, uploads = 0, reads = 0
        var failures: [String] = []
        var stored: [(id: String, hash: String)] = []

        mutating func add(_ other: Tally) {
            requests += other.requests
            uploads += other.uploads
            reads += other.reads
            failures += other.failures
            stored += other.stored
        }
    }

    /// Until `deadline`: one request in five an upload (half with random bytes after the image,
    /// so a new blob), the others a thumbnail (200 or 400 px) or, one in ten, an original.
    func run(until deadline: ContinuousClock.Instant, note: String, photos: [(name: String, data: Data)],
             readable: [String]) async -> Tally {
        var tally = Tally()
        var mine: [String] = []
        while ContinuousClock.now < deadline {
            tally.requests += 1
            let roll = Int.random(in: 0..<10)
            if roll < 2 {
                let photo = photos.randomElement()!
                var data = photo.data
                if Bool.random() { data.append(contentsOf: (0..<32).map { _ in UInt8.random(in: 0...255) }) }
                let outcome = await send("POST", "/api/notes/\(note)/attachments?filename=\(photo.name)", body: data)
                guard outcome.status == 201, let id = HTTP.object(outcome.body)?["id"] as? String else {
                    tally.failures.append("upload: \(outcome.status) \(outcome.error ?? String(decoding: outcome.body.prefix(200), as: UTF8.self))")
                    continue
                }
                tally.uploads += 1
                tally.stored.append((id, HTTP.sha256(data)))
                mine.append(id)
            } else {
                let id = (readable + mine).randomElement()!
                let path = roll == 9 ? "/api/attachments/\(id)/original" : "/api/attachments/\(id)/thumbnail?size=\([200, 400].randomElement()!)"
                let outcome = await send("GET", path, body: nil)
                guard outcome.status == 200, !outcome.body.isEmpty else {
                    tally.failures.append("GET \(path): \(outcome.status) \(outcome.error ?? "")")
                    continue
                }
                tally.reads += 1
            }
        }
        return tally
    }

    /// A request's status and body, or the transport error (status 0).
    private func send(_ method: String, _ path: String, body: Data?) async -> (status: Int, body: Data, error: String?) {
        var request = URLRequest(url: URL(string: server + path)!)
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue("image/jpeg", forHTTPHeaderField: "Content-Type") }
        do {
            let (data, response) = try await session.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, data, nil)
        } catch {
            return (0, Data(), "\(error)")
        }
    }
}
