import ArgumentParser
import Logging
import AttachmentStore
import Foundation

/// `attach`: keeps notes and their photo attachments in a store folder.
///
/// Exit codes: 0 success; 1 usage or input error (bad arguments, unreadable or missing input,
/// unknown id); 2 damage or internal error (`verify` found damage, disk full, catalog error).
@main
struct AttachCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Keep notes with large photo attachments: originals byte for byte, never re-encoded.",
        discussion: """
            The store is a folder (default ./attach-data, or $ATTACH_STORE, or --store DIR).
            Settings not on the command line come from the environment (ATTACH_<OPTION>), then
            from the YAML file --config FILE, $ATTACH_CONFIG or /etc/attach/attach.conf.
            Exit codes: 0 ok, 1 usage or input error, 2 damage or internal error.
            """,
        version: Version.description,
        subcommands: [
            InitCommand.self, NoteCommand.self, ImportCommand.self, ListCommand.self,
            ExportCommand.self, RemoveCommand.self, TrashCommand.self, VerifyCommand.self, GarbageCollectCommand.self, BackupCommand.self, RestoreCommand.self,
            StatsCommand.self, ThumbCommand.self, ThumbsCommand.self, VideoCommand.self, CacheCommand.self, SyncCommand.self,
            FetchCommand.self, ServeCommand.self,
        ]
    )

    /// Parses the arguments, runs the command, and maps every failure to the documented exit code.
    static func main() async {
        let given = Array(CommandLine.arguments.dropFirst())
        // Before any thread starts: one heap for every command but the server, which keeps glibc's
        // heap per thread (its CPU time per request rose with one). The subcommand is always the
        // first argument: the root command takes no options of its own but --help and --version.
        if given.first != ServeCommand.configuration.commandName { ProcessHeap.useOneHeap() }
        LoggingSystem.bootstrap(StandardErrorLogHandler.init)
        Signals.ignoreFileSizeLimit()
        let settings: Settings
        do {
            settings = try await Settings.load(arguments: given, environment: ProcessInfo.processInfo.environment)
        } catch {
            Foundation.exit(ExitStatus.report(error))
        }
        ProcessSettings.use(settings)
        let arguments = EnvironmentArguments(given, settings: settings)
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments.arguments)
        } catch {
            Foundation.exit(ExitStatus.report(arguments.environmentError(for: error) ?? error))
        }
        do {
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ValidationError {
            Foundation.exit(ExitStatus.report(arguments.environmentError(for: error) ?? error))
        } catch {
            Foundation.exit(ExitStatus.report(error))
        }
    }
}
