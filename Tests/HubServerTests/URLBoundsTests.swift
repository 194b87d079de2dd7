import Foundation
import HubHTTP
import HubModel
import HubServer
import HubTestSupport
import Testing

/// A client's values in a `remote` URL never reach outside its bounds.
@Suite("URL bounds: placeholders cannot escape")
struct URLBoundsTests {
    static let secret = "TOP-SECRET-OUTSIDE-CONFIG"

    /// A config directory with `content/a.json`, a symlink `content/link.json` to a file outside
    /// it, and features reading `file:content/{uri.2}.json` and `file:content/{query.p}.json`.
    /// Returns the config directory and the outside file's name (a sibling of the directory).
    static func writeConfig(upstream: String) throws -> (directory: String, outsideName: String) {
        var config = TestConfig()
        config["content/a.json"] = #"{"body":[{"id":"inside","text":{"title":"A"}}]}"#
        config.feature("files", #"""
            { "id": "files", "title": "T", "match": { "root": "hub:files" },
              "operations": [ { "kind": "remote", "url": "file:content/{uri.2}.json" } ] }
            """#)
        config.feature("query", #"""
            { "id": "query", "title": "T", "match": { "root": "hub:query" },
              "operations": [ { "kind": "remote", "url": "file:content/{query.p}.json" } ] }
            """#)
        config.feature("http", """
            { "id": "http", "title": "T", "match": { "root": "hub:http" },
              "operations": [ { "kind": "remote", "url": "\(upstream)/files/{uri.2}/data?x={uri.3}" } ] }
            """)
        let directory = try config.write()
        let outsideName = (directory as NSString).lastPathComponent + "-outside"
        let outside = (directory as NSString).deletingLastPathComponent + "/" + outsideName + ".json"
        try Data(#"{"body":[{"id":"leak","text":{"title":"\#(secret)"}}]}"#.utf8).write(to: URL(fileURLWithPath: outside))
        try FileManager.default.createSymbolicLink(
            atPath: directory + "/content/link.json", withDestinationPath: outside)
        return (directory, outsideName)
    }

    static func cleanUp(_ directory: String, _ outsideName: String) {
        try? FileManager.default.removeItem(atPath: directory)
        try? FileManager.default.removeItem(
            atPath: (directory as NSString).deletingLastPathComponent + "/" + outsideName + ".json")
    }

    @Test("file: {uri.N} and {query.NAME}: dot segments are refused (400 unsafe_url), the outside file is never served")
    func fileDotSegments() async throws {
        try await withUpstream({ router in
            router.add(.get, "/files/{name}/data") { _, _ in TestUpstream.json(#"{"body":[{"id":"up"}]}"#) }
        }) { upstream in
            let (directory, outsideName) = try Self.writeConfig(upstream: upstream.base)
            defer { Self.cleanUp(directory, outsideName) }
            try await withHub(directory: directory) { client, _ in
                let inside = try await client.view("hub:files:a")
                #expect(inside.status == 200, "\(inside)")
                #expect(try inside.json().bodyIDs == ["inside"])

                for uri in [
                    "hub:files:../../\(outsideName)", "hub:files:../content/../../\(outsideName)",
                    "hub:files:..\\..\\\(outsideName)",
                ] {
                    let response = try await client.view(uri)
                    try expectProblem(response, 400, "unsafe_url")
                    #expect(!response.text.contains(Self.secret), "\(uri): \(response)")
                }
                let viaQuery = try await client.get("/view?uri=" + client.encode("hub:query?p=../../\(outsideName)"))
                try expectProblem(viaQuery, 400, "unsafe_url")
                #expect(!viaQuery.text.contains(Self.secret))

                // An escaped slash arrives as text ("..%2F..%2Fname"): a file of that name, which does not exist.
                let escaped = try await client.get("/view?uri=" + client.encode("hub:files:") + "..%252F..%252F" + outsideName)
                #expect(escaped.status != 200, "\(escaped)")
                #expect(!escaped.text.contains(Self.secret))
            }
        }
    }

    @Test("file: a symlink inside the config directory that resolves outside it is refused")
    func fileSymlink() async throws {
        let (directory, outsideName) = try Self.writeConfig(upstream: "http://127.0.0.1:9")
        defer { Self.cleanUp(directory, outsideName) }
        try await withHub(directory: directory) { client, _ in
            let response = try await client.view("hub:files:link")
            try expectProblem(response, 400, "unsafe_url")
            #expect(!response.text.contains(Self.secret), "\(response)")
        }
    }

    @Test("http: a value forming '..' in the path never reaches the upstream; in the query it is data")
    func httpDotSegments() async throws {
        try await withUpstream({ router in
            router.add(.get, "/files/{name}/data") { _, _ in TestUpstream.json(#"{"body":[{"id":"up"}]}"#) }
        }) { upstream in
            let (directory, outsideName) = try Self.writeConfig(upstream: upstream.base)
            defer { Self.cleanUp(directory, outsideName) }
            try await withHub(directory: directory) { client, _ in
                for uri in ["hub:http:..", "hub:http:.", "hub:http:../admin"] {
                    try expectProblem(try await client.view(uri), 400, "unsafe_url")
                }
                #expect(upstream.log.all.isEmpty, "\(upstream.log.all.map(\.target))")

                let fine = try await client.view("hub:http:a.b:../q")
                #expect(fine.status == 200, "dots inside a segment and '..' in the query are fine: \(fine)")
                #expect(upstream.log.all.last?.target == "/files/a.b/data?x=..%2Fq")
            }
        }
    }

    @Test("validate refuses placeholders in the scheme or the authority")
    func validateOrigin() async throws {
        for url in [
            "http://{query.host}/x", "http://127.0.0.1:{query.port}/x", "{uri}", "http://user{header.X}@h/x",
            "{query.scheme}://h/x", "https://h{uri.2}",
        ] {
            var config = TestConfig()
            config.feature("bad", """
                { "id": "bad", "title": "T", "match": { "root": "hub:bad" },
                  "operations": [ { "kind": "remote", "url": "\(url)" } ] }
                """)
            let directory = try config.write()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            #expect(throws: ConfigurationError.self, "\(url)") { try ConfigLoader(environment: [:]).load(directory: directory) }
        }
        var actions = TestConfig()
        actions["actions.json"] = #"{ "evil": { "kind": "remote", "url": "http://{query.h}/act" } }"#
        let directory = try actions.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: ConfigurationError.self) { try ConfigLoader(environment: [:]).load(directory: directory) }
    }
}
