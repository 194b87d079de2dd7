import Foundation
import HubHTTP
import HubModel
@testable import HubServer
import HubTestSupport
import Testing

/// The served contracts are the files in docs/, and the OpenAPI
/// document describes exactly the routes the server has.
@Suite("Contracts: /openapi.json and /schema/view-model.json")
struct ContractTests {
    /// The repository root, from this file's path (Tests/HubServerTests/ContractTests.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func file(_ relative: String) throws -> [UInt8] {
        Array(try Data(contentsOf: root.appendingPathComponent(relative)))
    }

    @Test("GET /openapi.json and GET /schema/view-model.json serve the bytes of docs/")
    func servedBytesAreTheFiles() async throws {
        try await withHub(TestConfig()) { client, _ in
            let openAPI = try await client.get("/openapi.json")
            #expect(openAPI.status == 200)
            #expect(openAPI.header("Content-Type") == "application/json")
            #expect(openAPI.body == (try Self.file("docs/openapi.json")), "run python3 Tools/contracts.py")
            let schema = try await client.get("/schema/view-model.json")
            #expect(schema.status == 200)
            #expect(schema.header("Content-Type") == "application/schema+json")
            #expect(schema.body == (try Self.file("docs/view-model.schema.json")), "run python3 Tools/contracts.py")
            #expect(try openAPI.json()["openapi"]?.stringValue == "3.1.0")
            #expect(try schema.json()["$schema"]?.stringValue == "https://json-schema.org/draft/2020-12/schema")
        }
    }

    @Test("every route is described by the OpenAPI document, and every described operation is a route")
    func routesMatchTheDocument() async throws {
        let document = try JSONParser().parse(try Self.file("docs/openapi.json"))
        let paths = try #require(document["paths"]?.objectValue)
        var described = Set<String>()
        for (path, item) in paths {
            for (method, _) in try #require(item.objectValue) { described.insert("\(method.uppercased()) \(path)") }
        }
        try await withHub(TestConfig()) { _, app in
            var routed = Set<String>()
            // With an invalidation secret: the one route that is off without one.
            let invalidation = InvalidationEndpoint(
                invalidator: app.invalidator, secrets: [String(repeating: "k", count: 32)], jsonDepth: 64)
            for (template, methods) in Routes.makeRouter(shared: app.shared, invalidation: invalidation).registeredRoutes {
                for method in methods { routed.insert("\(method.rawValue) \(template)") }
            }
            // HEAD is served by every GET route; the document describes it where it differs (GET /view).
            let describedWithoutHead = described.filter { !$0.hasPrefix("HEAD ") }
            #expect(routed.subtracting(describedWithoutHead).isEmpty, "routes the document does not describe")
            #expect(describedWithoutHead.subtracting(routed).isEmpty, "described operations that are not routes")
            for head in described where head.hasPrefix("HEAD ") {
                #expect(routed.contains("GET " + head.dropFirst(5)), "\(head) needs a GET route")
            }
        }
    }

    @Test("the OpenAPI document's Hub-Client and Hub-Toggle limits are the ones the server answers 431 past")
    func headerLimitsMatchTheServer() throws {
        let document = try JSONParser().parse(try Self.file("docs/openapi.json"))
        let parameters = try #require(document["components"]?["parameters"])
        #expect(parameters["HubClient"]?["schema"]?["maxLength"]?.intValue == RetainedHeaders.maximumClientBytes)
        #expect(parameters["HubToggle"]?["schema"]?["maxLength"]?.intValue == RetainedHeaders.maximumToggleBytes)
    }

    @Test("the OpenAPI document carries the view-model definitions of /schema/view-model.json")
    func openAPIReferencesTheViewModelSchema() throws {
        let document = try JSONParser().parse(try Self.file("docs/openapi.json"))
        let schema = try JSONParser().parse(try Self.file("docs/view-model.schema.json"))
        let definitions = try #require(schema["$defs"]?.objectValue)
        let components = try #require(document["components"]?["schemas"]?.objectValue)
        for (name, _) in definitions { #expect(components[name] != nil, "\(name) missing from components/schemas") }
        #expect(components["ViewModel"]?["externalDocs"]?["url"]?.stringValue == "/schema/view-model.json")
        #expect(schema["$id"]?.stringValue == "/schema/view-model.json")
    }

    @Test("a request body's integer beyond 64 bits is read as a double; past the double range it is 400")
    func largeIntegersInBodies() async throws {
        var config = TestConfig()
        config.feature("plain", #"""
            { "id": "plain", "title": "T", "match": { "root": "hub:plain" },
              "operations": [ { "kind": "static", "json": { "body": [ { "id": "a" } ] } } ] }
            """#)
        try await withHub(config) { client, _ in
            let big = try await client.action(#"{"uri":"hub:plain","action":"hub:reload","custom":{"n":100000000000000000000}}"#)
            #expect(big.status == 200, "\(big)")
            try expectProblem(
                try await client.action(#"{"uri":"hub:plain","action":"hub:reload","custom":{"n":1e999}}"#), 400, "invalid_json")
        }
    }

    @Test("findings of schemathesis: an invalid uri is 400 with a live session too; next-page refuses unknown fields")
    func schemathesisFindings() async throws {
        var config = TestConfig()
        config.feature("plain", #"""
            { "id": "plain", "title": "T", "match": { "root": "hub:plain" },
              "operations": [ { "kind": "static", "json": { "body": [ { "id": "a" } ] } } ] }
            """#)
        try await withHub(config) { client, _ in
            let opened = try await client.view("hub:plain")
            let session = try #require(opened.header("Hub-Session"))
            try expectProblem(try await client.get("/view?session=\(session)&uri="), 400, "invalid_uri")
            try expectProblem(try await client.get("/view?session=\(session)&uri=%01"), 400, "invalid_uri")
            try expectProblem(
                try await client.action(#"{"session":"\#(session)","uri":"","action":"hub:reload"}"#), 400, "invalid_uri")
            #expect(try await client.get("/view?session=\(session)&uri=hub:plain").status == 200)
            try expectProblem(
                try await client.post("/view/next-page", #"{"session":"\#(session)","extra":1}"#), 422, "invalid_body")
            #expect(try await client.post("/view/next-page", #"{"session":"\#(session)"}"#).status == 200)
        }
    }
}
