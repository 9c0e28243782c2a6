extension RoomStore {
    /// A small named value kept beside the room's operations, such as the position in an
    /// XMPP room's archive up to which this replica has read; `nil` if never written.
    ///
    /// Notes live in `STORE/rooms/ROOM/NAME.note`; `name` is chosen by the program, never by
    /// a user, and must be a plain file name (letters, digits, `-` and `_`).
    public func note(named name: String) throws(StoreError) -> String? {
        try FileSystem.read(notePath(name)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Replaces a note durably (a crash leaves the old value or the new one). Waiting remote
    /// operations are written first, so that a note that records how far the replica has
    /// read never gets ahead of what is stored.
    public func setNote(named name: String, to value: String) throws(StoreError) {
        try flush()
        try FileSystem.replaceDurably(notePath(name), with: Array(value.utf8), folder: roomPath)
    }

    private func notePath(_ name: String) -> String {
        precondition(
            !name.isEmpty && name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" },
            "a note name is a plain file name chosen by the program")
        return roomPath + "/" + name + ".note"
    }
}
