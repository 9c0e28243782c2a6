import ArgumentParser

@main
struct Canvas: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "canvas",
        abstract: "A peer-to-peer collaborative whiteboard node.",
        discussion: """
            Every device keeps a full replica of a room's canvas; replicas converge with no \
            central authority. See README.md and docs/ for the whole picture.
            """,
        subcommands: [Demo.self, Join.self, Replay.self, Export.self, StoreCommand.self, Recognize.self, Bench.self]
    )
}
