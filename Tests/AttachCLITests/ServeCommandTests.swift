@testable import attach
import Foundation
import Testing
import TestSupport

@Suite("attach serve", .timeLimit(.minutes(3)))
struct ServeCommandTests {
    @Test("listening beyond loopback without a token is refused with exit code 1 and the reason")
    func publicAddressNeedsToken() async throws {
        let directory = try TemporaryDirectory("serve")
        let outcome = try await Attach.run(["serve", "--host", "0.0.0.0", "--port", "0"], store: directory.appending("store"))
        #expect(outcome.exitCode == 1)
        #expect(outcome.stderr.contains("refusing to listen on 0.0.0.0 without a token"))
        #expect(outcome.stderr.contains("--token"))
        #expect(!FileManager.default.fileExists(atPath: directory.appending("store").path(percentEncoded: false)))
    }

    @Test("listening beyond loopback with a token shorter than 16 bytes is refused with exit code 1 and the reason")
    func publicAddressNeedsLongToken() async throws {
        let directory = try TemporaryDirectory("serve")
        let outcome = try await Attach.run(["serve", "--host", "0.0.0.0", "--port", "0", "--token", "x"], store: directory.appending("store"))
        #expect(outcome.exitCode == 1)
        #expect(outcome.stderr.contains("refusing to listen on 0.0.0.0 with a 1-byte --token"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("at least 16"))
        #expect(!FileManager.default.fileExists(atPath: directory.appending("store").path(percentEncoded: false)))
    }
}

@Suite("attach serve from the environment", .timeLimit(.minutes(2)))
struct ServeEnvironmentTests {
    @Test("every option of attach serve is also read from an ATTACH_ variable and a key of the configuration file")
    func everyOptionHasAVariable() async throws {
        let dump = try await Attach.run(["serve", "--experimental-dump-help"], store: nil)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        let command = try #require(document["command"] as? [String: Any])
        var options = Set<String>()
        for argument in command["arguments"] as? [[String: Any]] ?? [] {
            for name in argument["names"] as? [[String: Any]] ?? [] where name["kind"] as? String == "long" {
                options.insert(try #require(name["name"] as? String))
            }
        }
        // --config names the file itself (ATTACH_CONFIG), so it is no key of it.
        options.subtract(["help", "version", "config"])
        #expect(options.count > 25)
        #expect(options == Set(ServeCommand.environmentOptions),
                "without a variable: \(options.subtracting(ServeCommand.environmentOptions).sorted())")
        #expect(Settings.knownKeys == options, "the file's keys are the options")
    }

    @Test("settings and the token file come from the environment; the command line wins")
    func environmentConfiguresTheServer() async throws {
        let directory = try TemporaryDirectory("serve-env")
        let tokenFile = directory.appending("token")
        try Data("from-a-file\n".utf8).write(to: tokenFile)
        let port = try ServerProcess.freePort()
        let server = try await ServerProcess(store: directory.appending("store"), port: port, [], environment: [
            "ATTACH_TOKEN_FILE": tokenFile.path(percentEncoded: false), "ATTACH_ALLOWED_HOST": "nas.local, photos.lan",
            "ATTACH_PORT": "1",  // the command line's --port wins
        ])
        defer { server.process.kill(SIGKILL) }
        #expect(try await server.get("/api/notes").status == 401)
        let (status, _) = try await ServerProcess.request(server.url + "/api/notes", method: "GET", body: nil,
                                                           headers: ["Authorization": "Bearer from-a-file"])
        #expect(status == 200)
        let (allowed, _) = try await ServerProcess.request(server.url + "/health", method: "GET", body: nil, headers: ["Host": "photos.lan"])
        #expect(allowed == 200)
        let (foreign, _) = try await ServerProcess.request(server.url + "/health", method: "GET", body: nil, headers: ["Host": "elsewhere.example"])
        #expect(foreign == 421)
    }

    @Test("a malformed value in the environment is refused naming the variable", arguments: [
        ("ATTACH_PORT", "eighty"), ("ATTACH_SYNC_INTERVAL", "-1"), ("ATTACH_MAX_UPLOAD", "lots"), ("ATTACH_TOKEN_FILE", "/nonexistent/token"),
    ])
    func malformedVariableIsNamed(variable: String, value: String) async throws {
        let directory = try TemporaryDirectory("serve-env-bad")
        // (--port on the command line would win over ATTACH_PORT.)
        let arguments = variable == "ATTACH_PORT" ? ["serve"] : ["serve", "--port", "0"]
        let outcome = try await Attach.run(arguments, store: directory.appending("store"), environment: [variable: value])
        #expect(outcome.exitCode == 1)
        #expect(outcome.stderr.contains(variable) || outcome.stderr.contains("--token-file /nonexistent/token"), "\(outcome.stderr)")
    }
}
