import CanvasCore
import CanvasStore
import CanvasTestSupport
import Foundation
import Testing

@Suite("Room notes")
struct RoomNotesTests {
    @Test func aNoteSurvivesReopeningAndIsReplaced() throws {
        let directory = temporaryStore()
        do {
            let store = try RoomStore.open(directory: directory, room: "lobby").store
            #expect(try store.note(named: "xmpp-archive-position") == nil)
            try store.setNote(named: "xmpp-archive-position", to: "first")
            try store.setNote(named: "xmpp-archive-position", to: "second")
            try store.close()
        }
        let reopened = try RoomStore.open(directory: directory, room: "lobby").store
        #expect(try reopened.note(named: "xmpp-archive-position") == "second")
        #expect(try reopened.note(named: "other") == nil)
    }

    /// A note records how far the replica has read: the remote operations before it must
    /// be on disk when it is, or a crash would skip them for good.
    @Test func settingANoteWritesTheWaitingRemoteBatchFirst() throws {
        var generator = SplitMix64(seed: announcedSeed())
        let operations = Histories.random(strokes: 5, pointsPerStroke: 1...10, using: &generator)
        let directory = temporaryStore()
        let store = try RoomStore.open(directory: directory, room: "lobby").store
        try store.appendRemote(operations, now: .zero)
        #expect(store.waitingOperations > 0)
        try store.setNote(named: "position", to: "after-these")
        #expect(store.waitingOperations == 0)
        // What a crash right now would leave: the log as written.
        let reread = try RoomStore.load(directory: directory, room: "lobby")
        #expect(reread == operations)
        try store.close()
    }
}
