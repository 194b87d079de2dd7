import HubHTTP
import HubTestSupport
import Testing

/// A large view served many times goes out from a body file (`sendfile`) once it has been sent
/// twice: every client gets the same bytes as before, over `?uri=` and
/// `?session=`, and `hub_cache_bytes{cache="body_files"}` shows the files.
@Suite("Large views sent from body files")
struct SharedBodyFileTests {
    /// A static view of about 60 KB: 600 rows.
    static func config() -> TestConfig {
        var config = TestConfig()
        let rows = (0..<600).map { #"{"id": "row\#($0)", "component": "row", "text": {"title": "Row \#($0) of the large view", "subtitle": "a subtitle long enough"}}"# }
        config.feature(
            "large",
            #"{"id": "large", "title": "Large", "match": {"uri": "hub:large"}, "operations": [{"kind": "static", "json": {"body": [\#(rows.joined(separator: ","))]}}]}"#)
        return config
    }

    @Test("?uri= and ?session= of a large view: the same bytes on every response, identity and gzip, and the files counted")
    func sameBytesFromTheFile() async throws {
        try await withHub(Self.config(), transport: .socket) { client, _ in
            let first = try await client.view("hub:large")
            #expect(first.status == 200)
            #expect(first.body.count > 50_000)
            let session = try #require(first.header("Hub-Session"))
            for _ in 0..<4 {
                let opened = try await client.view("hub:large")
                #expect(opened.body == first.body, "?uri=: the same bytes")
                let held = try await client.session(session)
                #expect(held.body == first.body, "?session=: the same bytes")
            }
            let zipped = try await client.view("hub:large", headers: [("Accept-Encoding", "gzip")])
            #expect(zipped.header("Content-Encoding") == "gzip")
            for _ in 0..<3 {
                let again = try await client.view("hub:large", headers: [("Accept-Encoding", "gzip")])
                #expect(again.body == zipped.body, "gzip: the same bytes")
            }
            let bytes = try #require(try await client.metric(#"hub_cache_bytes{cache="body_files"}"#))
            let files = try #require(try await client.metric(#"hub_cache_entries{cache="body_files"}"#))
            #expect(bytes >= Double(first.body.count), "the identity body has a file")
            #expect(files >= 1)
        }
    }
}
