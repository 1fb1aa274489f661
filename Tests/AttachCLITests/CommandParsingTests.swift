import ArgumentParser
@testable import attach
import Foundation
import Testing
import TestSupport

/// The command line of every `attach` command, parsed in-process as `attach` parses it
/// (`AttachCommand.parseAsRoot`, which also runs each command's `validate()`): the values a
/// valid line gives each option, the defaults, and for each invalid combination the one-line
/// reason and the usage exit code. Nothing is run, so no store is touched.
@Suite("attach command-line parsing")
struct CommandParsingTests {
    /// Parses `arguments` as the root command and returns the subcommand as `T`.
    static func parse<T: ParsableCommand>(_ arguments: [String], as type: T.Type = T.self) throws -> T {
        let command = try AttachCommand.parseAsRoot(arguments)
        return try #require(command as? T, "parsed as \(Swift.type(of: command))")
    }

    /// The message `attach` gives for `arguments` and whether it is a usage error (which
    /// `ExitStatus.report` turns into exit 1), or `nil` when they parse.
    static func refusal(_ arguments: [String]) -> (message: String, code: Int32)? {
        do {
            _ = try AttachCommand.parseAsRoot(arguments)
            return nil
        } catch {
            let code = AttachCommand.exitCode(for: error)
            return (AttachCommand.message(for: error), code == .validationFailure ? ExitStatus.inputError : code.rawValue)
        }
    }

    @Test("import takes files and folders in order, with exactly one of --note or --new-note", arguments: [
        ["import", "--note", "3f2a", "a.jpg", "photos/"], ["import", "a.jpg", "--note", "3f2a", "photos/"],
        ["import", "a.jpg", "photos/", "--note=3f2a"],
    ])
    func importWithNote(arguments: [String]) throws {
        let command = try Self.parse(arguments, as: ImportCommand.self)
        #expect(command.inputs == ["a.jpg", "photos/"])
        #expect(command.note == "3f2a" && command.newNote == nil)
        #expect(!command.noThumbnails && !command.json)
    }

    @Test("import --new-note takes the title, and the flags turn thumbnails off and JSON on")
    func importWithNewNote() throws {
        let command = try Self.parse(["import", "--new-note", "Trip to Lyon", "--no-thumbnails", "--json", "-", "--", "--odd-name.jpg"],
                                     as: ImportCommand.self)
        #expect(command.newNote == "Trip to Lyon" && command.note == nil)
        #expect(command.noThumbnails && command.json)
        #expect(command.inputs == ["-", "--odd-name.jpg"], "after --, a name that looks like an option is a file")
    }

    @Test("import without exactly one note option is refused with one reason and exit 1", arguments: [
        ["import", "a.jpg"], ["import", "--note", "x", "--new-note", "y", "a.jpg"],
    ])
    func importNeedsOneNote(arguments: [String]) throws {
        let refusal = try #require(Self.refusal(arguments))
        #expect(refusal.message == "give exactly one of --note ID or --new-note TITLE")
        #expect(refusal.code == ExitStatus.inputError)
    }

    @Test("import without any file names the missing argument")
    func importNeedsFiles() throws {
        let refusal = try #require(Self.refusal(["import", "--new-note", "x"]))
        #expect(refusal.message.contains("Missing expected argument '<FILES_OR_DIRS> ...'"))
        #expect(refusal.code == ExitStatus.inputError)
    }

    @Test("gc keeps garbage younger than an hour unless told otherwise, and removes unless --dry-run")
    func gcDefaults() throws {
        let command = try Self.parse(["gc"], as: GarbageCollectCommand.self)
        #expect(command.grace == "1h" && !command.dryRun && !command.json)
        let dry = try Self.parse(["gc", "--dry-run", "--grace", "0", "--json"], as: GarbageCollectCommand.self)
        #expect(dry.dryRun && dry.json && dry.grace == "0")
    }

    @Test("gc --grace takes seconds or a number with s, m, h or d", arguments: ["0", "90", "90s", "15m", "1h", "2d", "0d"])
    func gcGraceAccepted(grace: String) throws {
        #expect(try Self.parse(["gc", "--grace", grace], as: GarbageCollectCommand.self).grace == grace)
    }

    @Test("gc --grace refuses anything else, saying what it takes", arguments: ["soon", "1w", "-5m", "-1", "1.5h", "h", "1 h", "1H", "m1"])
    func gcGraceRefused(grace: String) throws {
        let refusal = try #require(Self.refusal(["gc", "--grace=" + grace]), "\(grace)")
        #expect(refusal.message == "--grace takes a duration such as 0, 90s, 15m, 1h or 2d")
        #expect(refusal.code == ExitStatus.inputError)
    }

    @Test("fetch takes one attachment or --all, never both nor neither", arguments: [
        (["fetch", "a1b2"], true), (["fetch", "--all"], true), (["fetch"], false), (["fetch", "a1b2", "--all"], false),
    ])
    func fetchTarget(arguments: [String], valid: Bool) throws {
        let refusal = Self.refusal(arguments)
        #expect((refusal == nil) == valid)
        if let refusal { #expect(refusal.message == "give an ATTACHMENT or --all" && refusal.code == ExitStatus.inputError) }
    }

    @Test("fetch, verify and sync collect repeated --peer options and peer URLs in order")
    func peersCollected() throws {
        let fetch = try Self.parse(["fetch", "--all", "--peer", "http://a:1", "--peer", "https://b:2", "--token", "t"], as: FetchCommand.self)
        #expect(fetch.peers == ["http://a:1", "https://b:2"] && fetch.all && fetch.attachment == nil)
        #expect(fetch.tokenOption.token == "t" && fetch.tokenOption.tokenFile == nil)
        let verify = try Self.parse(["verify", "--repair", "--peer", "http://a:1", "--peer-ca", "ca.pem"], as: VerifyCommand.self)
        #expect(verify.repair && verify.peers == ["http://a:1"] && verify.tokenOption.certificates.file == "ca.pem")
        let pull = try Self.parse(["sync", "pull", "http://a:1", "http://b:2", "--json"], as: SyncCommand.Pull.self)
        #expect(pull.arguments.peers == ["http://a:1", "http://b:2"] && pull.arguments.json)
        let both = try Self.parse(["sync", "http://a:1", "--json"], as: SyncCommand.Both.self)
        #expect(both.arguments.peers == ["http://a:1"] && both.arguments.json, "attach sync URL pushes and pulls")
        let push = try Self.parse(["sync", "push", "http://a:1", "--token", "t"], as: SyncCommand.Push.self)
        #expect(push.arguments.peers == ["http://a:1"] && push.arguments.tokenOption.token == "t")
        #expect(try Self.parse(["verify"], as: VerifyCommand.self).repair == false)
    }

    @Test("commands that act on records need at least one, and name the missing argument", arguments: [
        (["rm"], "'<ATTACHMENT> ...'"), (["note", "rm"], "'<notes> ...'"),
        (["export", "a1"], "'--output <PATH>'"), (["thumb", "a1"], "'--output <FILE>'"), (["note", "add"], "'<title>'"),
        (["note", "show"], "'<note>'"), (["restore", "backup"], "'--store <DIR>'"), (["backup"], "'<DEST>'"),
    ])
    func missingArguments(arguments: [String], missing: String) throws {
        let refusal = try #require(Self.refusal(arguments))
        #expect(refusal.message.contains("Missing expected argument \(missing)"), "\(refusal.message)")
        #expect(refusal.code == ExitStatus.inputError)
    }

    @Test("sync pull without a peer URL or a peers file names both ways to give one")
    func syncPullNeedsAPeer() throws {
        let refusal = try #require(Self.refusal(["sync", "pull"]))
        #expect(refusal.message.contains("name at least one peer URL (or give --peers-file)"), "\(refusal.message)")
        #expect(refusal.code == ExitStatus.inputError)
    }

    @Test("rm and note rm take every id given, in order")
    func removals() throws {
        #expect(try Self.parse(["rm", "a1", "b2", "c3"], as: RemoveCommand.self).attachments == ["a1", "b2", "c3"])
        #expect(try Self.parse(["note", "rm", "n1", "n2"], as: NoteCommand.Remove.self).notes == ["n1", "n2"])
    }

    @Test("note edit needs a new title, a new body or both", arguments: [
        (["note", "edit", "n1"], false), (["note", "edit", "n1", "--title", "T"], true), (["note", "edit", "n1", "--body", ""], true),
        (["note", "edit", "n1", "--title", "T", "--body", "B"], true),
    ])
    func noteEdit(arguments: [String], valid: Bool) throws {
        let refusal = Self.refusal(arguments)
        #expect((refusal == nil) == valid)
        if let refusal { #expect(refusal.message == "give --title, --body or both") }
    }

    @Test("an empty --body is a change to an empty body, not no change")
    func emptyBodyIsAChange() throws {
        let edit = try Self.parse(["note", "edit", "n1", "--body", ""], as: NoteCommand.Edit.self)
        #expect(edit.body == "" && edit.title == nil)
    }

    @Test("note add defaults to an empty body; note list to 100 notes from the first, unsearched")
    func noteDefaults() throws {
        let add = try Self.parse(["note", "add", "Trip"], as: NoteCommand.Add.self)
        #expect(add.title == "Trip" && add.body == "" && !add.json)
        let list = try Self.parse(["note", "list"], as: NoteCommand.List.self)
        #expect(list.limit == 100 && list.offset == 0 && list.search == nil)
        let paged = try Self.parse(["note", "list", "--limit", "5", "--offset", "10", "--search", "lyon"], as: NoteCommand.List.self)
        #expect(paged.limit == 5 && paged.offset == 10 && paged.search == "lyon")
    }

    @Test("a number option given a word names the value and the option", arguments: [
        (["note", "list", "--limit", "many"], "'many'", "'--limit <limit>'"),
        (["thumb", "a1", "-o", "t.jpg", "--size", "big"], "'big'", "'--size <size>'"),
        (["thumbs", "--size", "1.5"], "'1.5'", "'--size <size>'"),
        (["serve", "--max-upload", "lots"], "'lots'", "'--max-upload <MIB>'"),
        (["serve", "--port", "http"], "'http'", "'--port <port>'"),
    ])
    func numbersRefuseWords(arguments: [String], value: String, option: String) throws {
        let refusal = try #require(Self.refusal(arguments))
        #expect(refusal.message.contains("The value \(value) is invalid for \(option)"), "\(refusal.message)")
        #expect(refusal.code == ExitStatus.inputError)
    }

    @Test("list --state takes each attachment state by name", arguments: StoredAttachment.State.allCases)
    func listStates(state: StoredAttachment.State) throws {
        #expect(try Self.parse(["list", "--state", state.rawValue], as: ListCommand.self).state == state)
    }

    @Test("list --state refuses other names, listing the ones it takes")
    func listStateRefused() throws {
        let refusal = try #require(Self.refusal(["list", "--state", "Present"]))
        for name in ["present", "remote", "fetching", "evicted", "damaged"] { #expect(refusal.message.contains("'\(name)'")) }
        #expect(try Self.parse(["list"], as: ListCommand.self).state == nil)
    }

    @Test("thumb and thumbs make 200-pixel thumbnails unless given a size; -o and --output are one option")
    func thumbnailSizes() throws {
        let short = try Self.parse(["thumb", "a1", "-o", "t.jpg"], as: ThumbCommand.self)
        #expect(short.size == 200 && short.output == "t.jpg" && short.attachment == "a1")
        let long = try Self.parse(["thumb", "a1", "--output", "t.webp", "--size", "640"], as: ThumbCommand.self)
        #expect(long.size == 640 && long.output == "t.webp")
        let all = try Self.parse(["thumbs", "--note", "n1", "--json"], as: ThumbsCommand.self)
        #expect(all.size == 200 && all.note == "n1" && all.json)
    }

    /// The store options of a parsed command that opens a store.
    static func storeOptions(of command: any ParsableCommand) -> StoreOptions? {
        switch command {
        case let command as ListCommand: command.storeOptions
        case let command as StatsCommand: command.storeOptions
        case let command as VerifyCommand: command.storeOptions
        case let command as GarbageCollectCommand: command.storeOptions
        case let command as CacheCommand.Stats: command.storeOptions
        case let command as CacheCommand.Clear: command.storeOptions
        case let command as InitCommand: command.storeOptions
        case let command as NoteCommand.List: command.storeOptions
        case let command as BackupCommand: command.storeOptions
        default: nil
        }
    }

    @Test("--store, --blobs and --catalog reach the store options of every command that opens a store", arguments: [
        ["list"], ["stats"], ["verify"], ["gc"], ["cache", "stats"], ["cache", "clear"], ["init"], ["note", "list"], ["backup", "/b"],
    ])
    func storeOption(arguments: [String]) throws {
        let plain = try #require(Self.storeOptions(of: AttachCommand.parseAsRoot(arguments + ["--store", "/srv/my photos"])))
        #expect(plain.url.path(percentEncoded: false).hasPrefix("/srv/my photos"))
        #expect(plain.store == "/srv/my photos" && plain.blobs == nil && plain.catalog == nil)
        let located = try #require(Self.storeOptions(of: AttachCommand.parseAsRoot(
            arguments + ["--store", "s", "--blobs", "file:///srv/blobs", "--catalog", "sqlite"])))
        #expect(located.blobs == "file:///srv/blobs" && located.catalog == "sqlite")
    }

    @Test("restore takes its new store with --store of its own, and the backup as an argument")
    func restoreArguments() throws {
        let restore = try Self.parse(["restore", "/backups/monday", "--store", "/srv/new", "--json"], as: RestoreCommand.self)
        #expect(restore.backup == "/backups/monday" && restore.store == "/srv/new" && restore.json)
    }

    @Test("init records a storage budget only when one is given; none means no limit")
    func initBudget() throws {
        let plain = try Self.parse(["init"], as: InitCommand.self)
        #expect(!plain.budgetOptions.isGiven)
        let budget = try Self.parse(["init", "--max-local-bytes", "20G", "--max-thumbnail-cache-bytes", "none"], as: InitCommand.self)
        #expect(budget.budgetOptions.isGiven)
        #expect(budget.budgetOptions.maxLocalBytes == ByteSize(argument: "20G"))
        #expect(budget.budgetOptions.maxThumbnailCacheBytes?.bytes == nil && budget.budgetOptions.maxThumbnailCacheBytes != nil)
        #expect(Self.refusal(["init", "--max-local-bytes", "12Q"])?.message.contains("The value '12Q' is invalid") == true)
    }

    @Test("serve's defaults: loopback port 8080, 256 MiB uploads, on-demand fetching, info logs")
    func serveDefaults() throws {
        let serve = try Self.parse(["serve"], as: ServeCommand.self)
        #expect(serve.host == "127.0.0.1" && serve.port == 8080)
        #expect(serve.maxUploadMiB == 256 && serve.uploadExpiryHours == 24 && serve.sessionHours == 168)
        #expect(serve.fetch == "on-demand" && serve.logLevel == "info")
        #expect(serve.maxConnections == 512 && serve.maxConcurrentUploads == 16)
        #expect(serve.token == nil && serve.syncToken == nil && serve.peers.isEmpty && serve.allowedHosts.isEmpty)
        #expect(serve.peerBandwidth == nil && serve.scrubRate == nil && serve.syncInterval == 5 && serve.maxClockSkew == 300)
    }

    @Test("serve collects its repeatable options in order")
    func serveRepeatables() throws {
        let serve = try Self.parse(["serve", "--peer", "http://a:1", "--allowed-host", "nas.local", "--peer", "http://b:2",
                                    "--trusted-proxy", "10.0.0.0/8", "--allowed-host", "photos.lan", "--scrub-rate", "50M"],
                                   as: ServeCommand.self)
        #expect(serve.peers == ["http://a:1", "http://b:2"])
        #expect(serve.allowedHosts == ["nas.local", "photos.lan"])
        #expect(serve.trustedProxies == ["10.0.0.0/8"])
        #expect(serve.scrubRate?.bytes == 50 << 20)
    }

    @Test("an unknown command or option, or an option without its value, is a usage error", arguments: [
        ["frobnicate"], ["list", "--colour"], ["note", "publish"], ["gc", "--grace"],
    ])
    func unknownIsRefused(arguments: [String]) throws {
        let refusal = try #require(Self.refusal(arguments))
        #expect(refusal.code == ExitStatus.inputError)
        #expect(!refusal.message.isEmpty)
    }

    @Test("--version prints the release and commit and exits 0")
    func version() throws {
        let refusal = try #require(Self.refusal(["--version"]))
        #expect(refusal.code == ExitStatus.ok)
        #expect(refusal.message.hasPrefix(Version.number + " (commit "))
        #expect(refusal.message == Version.description)
    }
}
