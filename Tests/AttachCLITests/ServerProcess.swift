import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport

/// An `attach serve` child process on a loopback port, for tests that need real peers.
final class ServerProcess: Sendable {
    let port: Int
    let store: URL
    let process: ChildProcess

    /// Starts `LAUNCHER... attach serve --store STORE --port PORT EXTRA...` and waits until it
    /// listens. A launcher such as `prlimit --fsize=N` runs the server under a limit.
    init(store: URL, port: Int, _ extra: [String] = [], launcher: [String] = [], environment: [String: String] = [:]) async throws {
        self.store = store
        self.port = port
        let command = launcher + [Attach.binary, "serve", "--store", store.path(percentEncoded: false), "--port", String(port),
                                  "--log-level", "warning"] + extra
        process = try ChildProcess(command[0], Array(command.dropFirst()), environment: environment)
        let deadline = ContinuousClock.now + .seconds(20)
        while !process.stdoutSoFar.contains("serving ") {
            guard ContinuousClock.now < deadline else { throw Failed(message: "attach serve did not start on port \(port)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// `http://127.0.0.1:PORT`.
    var url: String { "http://127.0.0.1:\(port)" }

    /// Stops the server: SIGTERM (graceful) or SIGKILL.
    func stop(_ signal: Int32 = SIGTERM) async {
        process.kill(signal)
        _ = await process.wait()
    }

    /// GET `path`; returns the status and body.
    func get(_ path: String) async throws -> (status: Int, body: Data) {
        try await Self.request(url + path, method: "GET", body: nil)
    }

    /// A JSON object from GET `path`.
    func json(_ path: String) async throws -> [String: Any] {
        let (status, body) = try await get(path)
        guard status == 200, let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw Failed(message: "GET \(path) answered \(status): \(String(decoding: body, as: UTF8.self))")
        }
        return object
    }

    /// Sends a request with a JSON body.
    func send(_ method: String, _ path: String, json: [String: Any]) async throws -> Int {
        try await Self.request(url + path, method: method, body: try JSONSerialization.data(withJSONObject: json)).status
    }

    static func request(_ url: String, method: String, body: Data?, headers: [String: String] = [:]) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.timeoutInterval = 60
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// A TCP port nothing listens on now.
    static func freePort() throws -> Int { try LoopbackPort.free() }

    /// Polls `condition` until it holds or `seconds` pass.
    static func eventually(_ seconds: Int = 30, _ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw Failed(message: "timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    struct Failed: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
