@testable import attach
import Testing

/// How `attach serve` takes options from `ATTACH_*` variables (``EnvironmentArguments``),
/// in-process with a given environment: the variable each option reads, that only `serve`
/// reads them, that the command line wins, how lists are split, that a value is never taken
/// for an option, and how a parse error about an injected value names its variable.
/// (``ServeEnvironmentTests`` checks the same through a running server.)
@Suite("attach serve options from the environment")
struct EnvironmentArgumentsTests {
    @Test("an option's variable is ATTACH_ and its name in capitals, dashes as underscores", arguments: [
        ("store", "ATTACH_STORE"), ("max-upload", "ATTACH_MAX_UPLOAD"), ("peer-ca", "ATTACH_PEER_CA"),
        ("max-thumbnail-cache-bytes", "ATTACH_MAX_THUMBNAIL_CACHE_BYTES"),
    ])
    func variableNames(option: String, variable: String) {
        #expect(EnvironmentArguments.variable(for: option) == variable)
    }

    @Test("every serve option has a distinct variable")
    func distinctVariables() {
        let variables = ServeCommand.environmentOptions.map(EnvironmentArguments.variable(for:))
        #expect(Set(variables).count == ServeCommand.environmentOptions.count)
        #expect(ServeCommand.repeatableOptions.isSubset(of: Set(ServeCommand.environmentOptions)))
    }

    @Test("commands other than serve ignore the environment", arguments: [["list"], ["gc", "--grace", "0"], ["note", "serve"], []])
    func otherCommands(arguments: [String]) {
        let expanded = EnvironmentArguments(arguments, environment: ["ATTACH_PORT": "9000", "ATTACH_STORE": "/srv/p"])
        #expect(expanded.arguments == arguments)
        #expect(expanded.injected.isEmpty)
    }

    @Test("serve's help is never changed by the environment", arguments: [["serve", "--help"], ["serve", "-h"]])
    func helpUnchanged(arguments: [String]) {
        let expanded = EnvironmentArguments(arguments, environment: ["ATTACH_PORT": "9000"])
        #expect(expanded.arguments == arguments && expanded.injected.isEmpty)
    }

    @Test("a variable becomes one --option=value word after the command line, in the order of the options")
    func injection() {
        let expanded = EnvironmentArguments(["serve", "--host", "0.0.0.0"],
                                            environment: ["ATTACH_PORT": "9000", "ATTACH_STORE": "/srv/p", "HOME": "/root",
                                                          "ATTACH_UNKNOWN": "x", "ATTACH_LOG_LEVEL": "debug"])
        #expect(expanded.arguments == ["serve", "--host", "0.0.0.0", "--store=/srv/p", "--port=9000", "--log-level=debug"])
        #expect(expanded.injected == [
            .init(option: "store", variable: "ATTACH_STORE", value: "/srv/p"),
            .init(option: "port", variable: "ATTACH_PORT", value: "9000"),
            .init(option: "log-level", variable: "ATTACH_LOG_LEVEL", value: "debug"),
        ])
    }

    @Test("an option on the command line, in either spelling, wins over its variable", arguments: [
        ["serve", "--port", "1"], ["serve", "--port=1"],
    ])
    func commandLineWins(arguments: [String]) {
        let expanded = EnvironmentArguments(arguments, environment: ["ATTACH_PORT": "9000"])
        #expect(expanded.arguments == arguments)
        #expect(expanded.injected.isEmpty)
    }

    @Test("an option whose name begins another's is told apart from it")
    func prefixOptions() {
        let expanded = EnvironmentArguments(["serve", "--peer-token", "t"], environment: ["ATTACH_PEER": "http://a:1"])
        #expect(expanded.arguments == ["serve", "--peer-token", "t", "--peer=http://a:1"])
    }

    @Test("an empty variable is as good as unset")
    func emptyVariable() {
        let expanded = EnvironmentArguments(["serve"], environment: ["ATTACH_PORT": "", "ATTACH_PEER": ""])
        #expect(expanded.arguments == ["serve"] && expanded.injected.isEmpty)
    }

    @Test("a repeatable option's variable is a comma-separated list, trimmed, empty entries dropped")
    func lists() {
        let expanded = EnvironmentArguments(["serve"], environment: [
            "ATTACH_PEER": " http://a:1 ,http://b:2,, ", "ATTACH_ALLOWED_HOST": "nas.local", "ATTACH_TRUSTED_PROXY": ",",
        ])
        #expect(expanded.arguments == ["serve", "--allowed-host=nas.local", "--peer=http://a:1", "--peer=http://b:2"])
        #expect(expanded.injected.map(\.value) == ["nas.local", "http://a:1", "http://b:2"])
    }

    @Test("commas in a single-valued option's variable are part of its value")
    func commasKeptInSingleValues() {
        let expanded = EnvironmentArguments(["serve"], environment: ["ATTACH_PUBLIC_URL": "https://a.example/x,y"])
        #expect(expanded.arguments == ["serve", "--public-url=https://a.example/x,y"])
    }

    @Test("injected values reach the command as written, even ones that begin with a dash or hold an equals sign")
    func injectedValuesParse() throws {
        let expanded = EnvironmentArguments(["serve"], environment: [
            "ATTACH_TOKEN": "-secret=with=equals", "ATTACH_PUBLIC_URL": "https://p.example/?a=b", "ATTACH_PORT": "9000",
            "ATTACH_PEER": "http://a:1,http://b:2", "ATTACH_MAX_LOCAL_BYTES": "20G",
        ])
        let serve = try #require(try AttachCommand.parseAsRoot(expanded.arguments) as? ServeCommand)
        #expect(serve.token == "-secret=with=equals")
        #expect(serve.publicURL == "https://p.example/?a=b")
        #expect(serve.port == 9000)
        #expect(serve.peers == ["http://a:1", "http://b:2"])
        #expect(serve.budgetOptions.maxLocalBytes?.bytes == 20 << 30)
    }

    @Test("a parse error about an injected value is re-worded to name its variable and value")
    func errorNamesVariable() throws {
        let expanded = EnvironmentArguments(["serve"], environment: ["ATTACH_PORT": "eighty"])
        let error = try #require(throws: (any Error).self) { try AttachCommand.parseAsRoot(expanded.arguments) }
        let reworded = try #require(expanded.environmentError(for: error))
        #expect(reworded.message.hasPrefix("ATTACH_PORT=eighty in the environment: "))
        #expect(reworded.message.contains("'eighty'") && reworded.message.contains("--port"))
    }

    @Test("a parse error about an option from the command line is left as it is")
    func commandLineErrorUnchanged() throws {
        let expanded = EnvironmentArguments(["serve", "--max-upload", "lots"], environment: ["ATTACH_PORT": "9000"])
        let error = try #require(throws: (any Error).self) { try AttachCommand.parseAsRoot(expanded.arguments) }
        #expect(expanded.environmentError(for: error) == nil)
        let untouched = EnvironmentArguments(["serve", "--port", "x"], environment: [:])
        let other = try #require(throws: (any Error).self) { try AttachCommand.parseAsRoot(untouched.arguments) }
        #expect(untouched.environmentError(for: other) == nil)
    }
}
