import Foundation
import PackagePlugin

/// Compiles the page's files (`Page/` of the target: HTML, JavaScript, CSS) into the
/// target, so that the `canvas` binary serves its page wherever it is copied, with no
/// resource folder beside it. The files stay plain files in the repository.
@main
struct EmbedPage: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let folder = target.directoryURL.appending(path: "Page")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedPage.swift")
        return [
            .buildCommand(
                displayName: "Embedding the page's files of \(target.name)",
                executable: try context.tool(named: "EmbedFiles").url,
                arguments: [output.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output])
        ]
    }
}
