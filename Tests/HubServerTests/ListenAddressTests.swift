import Foundation
import HubHTTP
import HubServer
import HubSync
import HubTestSupport
import Testing

/// Where a server listens when its `server.json` names no `"host"`: 127.0.0.1, loopback only
/// (as Vapor and Hummingbird default), so that a binary started by hand is not reachable from
/// the network. The image and `deploy/` choose every interface with `HUB_HOST=0.0.0.0`.
@Suite("Listen address: loopback unless configured")
struct ListenAddressTests {
    static func settings(server: String, environment: [String: String] = [:]) throws -> ServerSettings {
        var config = TestConfig(server: server)
        config.feature("a", #"{ "id": "a", "title": "A", "match": { "root": "hub:a" }, "operations": [ { "kind": "static", "json": {} } ] }"#)
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try ConfigLoader(environment: environment).load(directory: directory).settings
    }

    @Test("the defaults: a server.json without \"host\" (and an empty one) binds 127.0.0.1; HubHTTP's own default is the same")
    func defaultIsLoopback() throws {
        #expect(ServerSettings().host == "127.0.0.1")
        #expect(HTTPServerConfiguration().host == "127.0.0.1")
        #expect(try Self.settings(server: "{}").host == "127.0.0.1")
        #expect(try Self.settings(server: #"{ "port": 8080 }"#).host == "127.0.0.1")
        // The way around: "host" and HUB_HOST still choose every interface.
        #expect(try Self.settings(server: #"{ "host": "0.0.0.0" }"#).host == "0.0.0.0")
        #expect(try Self.settings(server: "{}", environment: ["HUB_HOST": "0.0.0.0"]).host == "0.0.0.0")
        #expect(try Self.settings(server: #"{ "host": "127.0.0.1" }"#, environment: ["HUB_HOST": "::"]).host == "::")
    }

    @Test("a server started from a server.json without \"host\" listens on 127.0.0.1 (its listening line says so) and answers there")
    func startedServerBindsLoopback() async throws {
        var config = TestConfig(server: #"{ "port": 0, "timeouts": { "drainSeconds": 1 } }"#)
        config.feature("a", #"{ "id": "a", "title": "A", "match": { "root": "hub:a" }, "operations": [ { "kind": "static", "json": {} } ] }"#)
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lines = Locked<[String]>([])
        let logger = JSONLogger(level: .info, format: .json) { line in lines.withLock { $0.append(line) } }
        let app = try HubApplication(configuration: try ConfigLoader(environment: testEnvironment).load(directory: directory), logger: logger)
        try app.start()
        do {
            let listening = lines.withLock { $0 }.first { $0.contains(#""msg":"listening""#) }
            #expect(listening?.contains(#""address":"127.0.0.1:\#(app.port)""#) == true, "\(lines.withLock { $0 })")
            #expect(try await HubClient(port: app.port).get("/health").status == 200)
            await app.shutdown()
        } catch {
            await app.shutdown()
            throw error
        }
    }

    @Test("the image, deploy/server.json, the compose file and the Kubernetes Deployment still listen on every interface")
    func deploymentsListenEverywhere() throws {
        #expect(try BuildContext.read("Dockerfile").contains("HUB_HOST=0.0.0.0"))
        let server = try JSONSerialization.jsonObject(with: Data(try BuildContext.read("deploy/server.json").utf8)) as? [String: Any]
        #expect(server?["host"] as? String == "0.0.0.0")
        #expect(try BuildContext.read("deploy/compose.yaml").contains(#"HUB_HOST: "0.0.0.0""#))
        #expect(try BuildContext.read("deploy/kubernetes/deployment.yaml").contains("- name: HUB_HOST\n              value: \"0.0.0.0\""))
        #expect(try BuildContext.read("deploy/kubernetes/configmap.yaml").contains(#""host": "0.0.0.0""#))
    }
}
