/// What is left of a body file's send when the socket stopped taking it: the file and how far
/// the send got. ``Connection`` sends the rest from the file (`sendfile`) as the socket drains,
/// ahead of anything queued after it, so a slow reader of a large view holds a reference to the
/// file every response shares instead of a copy of the rest of its body (as nginx resumes a
/// `sendfile`).
struct PendingFileSend {
    /// The file the rest is sent from.
    let file: BodyFile
    /// The body the file mirrors: its bytes are the fallback if the file cannot be read on.
    let body: SharedBytes
    /// How many of the file's bytes the socket has taken.
    var offset: Int

    /// Whether the socket has taken the whole file.
    var isComplete: Bool { offset >= file.count }
}
