import HubHTTP

/// The listening socket could not be opened: names the address and port and says how to pick
/// another, instead of the bare system call error (`bind failed: Address already in use`).
public struct ListenError: Error, Sendable, CustomStringConvertible {
    /// The address the server tried to listen on.
    public let host: String
    /// The port it tried (0: any free port).
    public let port: Int
    /// The failed system call.
    public let underlying: SocketError

    /// Creates the error for a failed listen on `host`:`port`.
    public init(host: String, port: Int, underlying: SocketError) {
        self.host = host
        self.port = port
        self.underlying = underlying
    }

    public var description: String {
        let reason = "\(underlying)"
        let advice = underlying.errno == 98  // EADDRINUSE
            ? "another process is listening on port \(port); stop it, or pick another port with HUB_PORT=8081 (or \"port\" in server.json, or hub-server serve --port 8081)"
            : "check the address and port: HUB_HOST and HUB_PORT (or \"host\" and \"port\" in server.json, or --host and --port)"
        return "cannot listen on \(host):\(port): \(reason); \(advice)"
    }
}
