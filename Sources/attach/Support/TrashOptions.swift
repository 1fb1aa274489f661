import ArgumentParser
import AttachmentStore

/// `--trash-days`, for the commands that purge the trash after its retention or show when they
/// will (`serve`, `gc`, `trash`).
struct TrashOptions: ParsableArguments {
    @Option(name: .customLong("trash-days"),
            help: ArgumentHelp("Keep notes and attachments in the trash this many days before they are purged on every peer "
                               + "(0 purges at the next check).", valueName: "DAYS"))
    var trashDays = 30

    func validate() throws {
        guard (0...36_500).contains(trashDays) else { throw ValidationError("--trash-days takes a whole number of days from 0 to 36500") }
    }

    /// The retention as a duration.
    var retention: Duration { .seconds(Int64(trashDays) * 86_400) }

    /// `configuration` keeping the trash this long.
    func applied(to configuration: AttachmentStore.Configuration = AttachmentStore.Configuration()) -> AttachmentStore.Configuration {
        var configuration = configuration
        configuration.trashRetention = retention
        return configuration
    }
}
