import HubTestSupport
import HubUpstream

/// Runs `body` with a started upstream and client, then stops both.
func withUpstream<T>(
    configuration: UpstreamConfiguration = UpstreamConfiguration(),
    handler: @escaping TestUpstream.Handler,
    _ body: (TestUpstream, CurlUpstreamClient) async throws -> T
) async throws -> T {
    let upstream = try TestUpstream(handler: handler)
    let client = CurlUpstreamClient(configuration: configuration)
    defer {
        client.shutdown()
        upstream.stop()
    }
    return try await body(upstream, client)
}
