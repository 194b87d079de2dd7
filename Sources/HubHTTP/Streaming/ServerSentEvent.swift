/// One Server-Sent Event (WHATWG HTML, "Server-sent events").
public struct ServerSentEvent: Sendable, Hashable {
    /// The event type (`event:` line), or nil for the default `message`.
    public var event: String?
    /// The data; each line becomes one `data:` line.
    public var data: String
    /// The event id (`id:` line), or nil.
    public var id: String?

    public init(event: String? = nil, data: String, id: String? = nil) {
        self.event = event
        self.data = data
        self.id = id
    }

    /// The wire form: `event:`, `id:`, one `data:` per line, then a blank line. Line breaks
    /// inside `event` and `id` are dropped so one event can never inject another.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.utf8.count + 32)
        if let event {
            out.append(contentsOf: "event: ".utf8)
            out.append(contentsOf: event.utf8.lazy.filter { $0 != 0x0A && $0 != 0x0D })
            out.append(0x0A)
        }
        if let id {
            out.append(contentsOf: "id: ".utf8)
            out.append(contentsOf: id.utf8.lazy.filter { $0 != 0x0A && $0 != 0x0D && $0 != 0 })
            out.append(0x0A)
        }
        var line: [UInt8] = []
        var previousWasCR = false
        func flush() {
            out.append(contentsOf: "data: ".utf8)
            out.append(contentsOf: line)
            out.append(0x0A)
            line.removeAll(keepingCapacity: true)
        }
        for byte in data.utf8 {
            if byte == 0x0A {
                if !previousWasCR { flush() }
                previousWasCR = false
            } else if byte == 0x0D {
                flush()
                previousWasCR = true
            } else {
                line.append(byte)
                previousWasCR = false
            }
        }
        if !line.isEmpty || !previousWasCR { flush() }
        out.append(0x0A)
        return out
    }

    /// The heartbeat sent while a stream is quiet: an SSE comment line, ignored by clients.
    static let heartbeat: [UInt8] = Array(": heartbeat\n\n".utf8)
}
