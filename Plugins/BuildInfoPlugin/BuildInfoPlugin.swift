import Foundation
import PackagePlugin

/// Records which commit a binary was built from: before every build of the target it runs
/// `scripts/build-info.sh`, which writes `BuildInfo.swift` (`BuildInfo.commit`) from `git`,
/// rewriting it only when the commit changed.
@main
struct BuildInfoPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "generated")
        let script = context.package.directoryURL.appending(path: "scripts/build-info.sh")
        return [
            .prebuildCommand(
                displayName: "Recording the commit of this build",
                executable: URL(filePath: "/bin/sh"),
                arguments: [script.path(percentEncoded: false), context.package.directoryURL.path(percentEncoded: false),
                            output.path(percentEncoded: false)],
                outputFilesDirectory: output
            ),
        ]
    }
}
