import Foundation
import HubHTTP
import HubModel
@testable import HubServer
import Testing

/// Issue 13 items 1 and 2: the served contracts are the files in docs/, and the OpenAPI
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
            for (template, methods) in Routes.makeRouter(state: app.state).registeredRoutes {
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
}
