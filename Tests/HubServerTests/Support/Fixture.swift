import Foundation
import HubEngine
import HubHTTP
import HubModel
import HubServer
import HubTestSupport

/// The standard upstream every fixture feature talks to.
func makeStandardUpstream() throws -> TestUpstream {
    try TestUpstream { router in
        router.add(.get, "/object") { _, _ in
            TestUpstream.json(#"{"title":"Remote title","body":[{"id":"r1","text":{"title":"R1"}}]}"#)
        }
        router.add(.get, "/array") { _, _ in
            TestUpstream.json(#"[{"id":"x1","text":{"title":"X1"}},{"id":"x2","text":{"title":"X2"}}]"#)
        }
        router.add(.get, "/items") { _, _ in
            TestUpstream.json(
                #"{"data":{"name":"Items","items":[{"uuid":"u1","name":"First","title":"ignored","artwork":{"url":"https://img.example/1.jpg"},"type":"default:card"},{"uuid":"u2","title":"Second"}]}}"#
            )
        }
        router.add(.get, "/echo") { _, _ in TestUpstream.json(#"{"body":[{"id":"echo","text":{"title":"Echo"}}]}"#) }
        router.add(.get, "/page") { request, _ in
            let page = request.queryValues("n").first ?? "?"
            return TestUpstream.json(#"{"body":[{"id":"p\#(page)","text":{"title":"Page \#(page)"}}]}"#)
        }
        router.add(.get, "/status500") { _, _ in TestUpstream.json(#"{"error":"boom"}"#, status: .internalServerError) }
        router.add(.get, "/badjson") { _, _ in TestUpstream.json(#"{"body": [ not json"#) }
        router.add(.get, "/slow") { _, _ in
            // Far past the 200 ms timeoutMs of the features that fetch it, even on a loaded machine.
            try? await Task.sleep(for: .seconds(20))
            return TestUpstream.json(#"{"body":[{"id":"late"}]}"#)
        }
        let arrived = Counter()
        router.add(.get, "/overlap") { request, _ in
            let index = request.queryValues("i").first ?? "?"
            // A barrier: answers 200 only when both fetches are in flight at once.
            arrived.increment()
            let deadline = ContinuousClock.now + .seconds(30)
            while arrived.count < 2, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
            return arrived.count >= 2
                ? TestUpstream.json(#"[{"id":"overlap-\#(index)"}]"#) : TestUpstream.json("{}", status: .serviceUnavailable)
        }
        let flaky = Counter()
        router.add(.get, "/flaky") { _, _ in
            flaky.increment() == 1
                ? TestUpstream.json(#"{"error":"try again"}"#, status: .serviceUnavailable)
                : TestUpstream.json(#"{"body":[{"id":"steady"}]}"#)
        }
        router.add(.get, "/cached") { _, _ in
            var response = TestUpstream.json(#"{"body":[{"id":"cached"}]}"#)
            response.headers.add(name: "Cache-Control", value: "max-age=60")
            return response
        }
        router.add(.post, "/act-slow") { _, _ in
            try? await Task.sleep(for: .seconds(20))
            return TestUpstream.json("{}")
        }
        router.add(.post, "/act/{name}") { _, context in
            switch context.pathParameters["name"] {
            case "ok": return TestUpstream.json("{}")
            case "no": return TestUpstream.json(#"{"error":"nope"}"#, status: .notFound)
            default: return TestUpstream.json(#"{"error":"boom"}"#, status: .internalServerError)
            }
        }
    }
}

/// Swift operations and actions of the standard fixture, with counters the tests read.
struct Fixture: Sendable {
    let always = Counter()
    let never = Counter()
    let maxAge = Counter()
    let observer = Counter()
    let connectivity = Counter()
    let actionLog = StringLog()

    var extensions: SwiftExtensions {
        var extensions = SwiftExtensions()
        for (name, counter) in [
            ("countAlways", always), ("countNever", never), ("countMaxAge", maxAge), ("observer", observer),
            ("countConnectivity", connectivity),
        ] {
            extensions.registerOperation(name) { _ in CountingOperation(counter: counter, observes: []) }
        }
        let log = actionLog
        extensions.registerActionFactory(
            "test",
            ClosureActionFactory([
                "ok": { _ in log.append("ok"); return .performed },
                "no": { _ in log.append("no"); return .notPerformed },
                "bump": { _ in log.append("bump"); return .performed },
                "vetoed": { _ in log.append("vetoed"); return .performed },
            ]))
        return extensions
    }

    /// The standard configuration: one feature per behaviour under test.
    static func config(upstream: String, server: String = TestConfig.defaultServer) -> TestConfig {
        var config = TestConfig(server: server)
        config["content/extra.json"] = #"[{"id":"c","text":{"title":"C"}}]"#
        config["schemas/items.json"] = """
            { "id": "items",
              "view": { "title": ["data", "name"], "body": ["data", "items", "*"] },
              "component": { "id": ["uuid"], "text.title": { "first": [["name"], ["title"]] },
                             "images.main.uri": ["artwork", "url"], "component.id": ["type"] } }
            """
        config["toggles.json"] = """
            { "layout": { "values": ["list", "grid"], "default": "list",
                          "rollout": { "grid": 50 }, "key": "header:Hub-Client-Id" } }
            """
        config["actions.json"] = """
            { "test": { "kind": "swift", "name": "test" },
              "remote": { "kind": "remote", "url": "\(upstream)/act/{action.name}", "timeoutMs": 30000 },
              "slowremote": { "kind": "remote", "url": "\(upstream)/act-slow", "timeoutMs": 200 } }
            """
        config.feature("static", """
            { "id": "static", "title": "Static", "match": { "root": "hub:static" },
              "operations": [
                { "kind": "static", "json": { "title": "Static view", "body": [ { "id": "a", "text": { "title": "A" } } ] } },
                { "kind": "static", "file": "content/extra.json" } ] }
            """)
        config.feature("remote", """
            { "id": "remote", "title": "Remote", "match": { "root": "hub:remote" },
              "operations": [ { "kind": "remote", "url": "\(upstream)/object" } ] }
            """)
        config.feature("array", """
            { "id": "array", "title": "Array", "match": { "root": "hub:array" },
              "operations": [ { "kind": "remote", "url": "\(upstream)/array" } ] }
            """)
        config.feature("custom", """
            { "id": "custom", "title": "Custom", "match": { "root": "hub:custom" }, "schema": "items",
              "operations": [ { "kind": "remote", "url": "\(upstream)/items" } ] }
            """)
        config.feature("subst", """
            { "id": "subst", "title": "Subst", "match": { "root": "hub:subst" },
              "operations": [ { "kind": "remote",
                "url": "\(upstream)/echo?seg={uri.2}&q={query.q}&h={header.X-Test}&page={page}" } ] }
            """)
        config.feature("pages", """
            { "id": "pages", "title": "Pages", "match": { "root": "hub:pages" },
              "operations": [ { "kind": "remote", "url": "\(upstream)/page?n={page}", "paginated": true } ] }
            """)
        config.feature("fail", """
            { "id": "fail", "title": "Fail", "match": { "root": "hub:fail" },
              "operations": [ { "kind": "remote", "url": "\(upstream)/status500" } ] }
            """)
        config.feature("badjson", """
            { "id": "badjson", "title": "Bad JSON", "match": { "root": "hub:badjson" },
              "operations": [ { "kind": "remote", "url": "\(upstream)/badjson" } ] }
            """)
        config.feature("refused", """
            { "id": "refused", "title": "Refused", "match": { "root": "hub:refused" },
              "operations": [ { "kind": "remote", "url": "http://127.0.0.1:1/nothing" } ] }
            """)
        config.feature("slow", """
            { "id": "slow", "title": "Slow", "match": { "root": "hub:slow" },
              "operations": [ { "kind": "remote", "url": "\(upstream)/slow", "timeoutMs": 200 } ] }
            """)
        config.feature("recover", """
            { "id": "recover", "title": "Recover", "match": { "uri": "hub:recover" },
              "operations": [
                { "kind": "remote", "url": "\(upstream)/status500" },
                { "kind": "recover", "json": { "body": [ { "id": "offline", "text": { "title": "Try again" } } ] } } ] }
            """)
        config.feature("recover-ok", """
            { "id": "recover-ok", "title": "Recover OK", "match": { "uri": "hub:recover-ok" },
              "operations": [
                { "kind": "static", "json": { "body": [ { "id": "ok" } ] } },
                { "kind": "recover", "json": { "body": [ { "id": "offline" } ] } } ] }
            """)
        config.feature("variant", """
            { "id": "variant", "title": "Variant", "match": { "root": "hub:variant" },
              "operations": [
                { "kind": "static", "json": { "body": [ { "id": "item", "text": { "title": "Item" } } ] } },
                { "kind": "variant", "toggle": "layout", "variants": {
                    "list": [ { "kind": "patch", "set": { "item": { "text": { "title": "List" } } } } ],
                    "grid": [ { "kind": "patch", "set": { "item": { "text": { "title": "Grid" } } } } ] } } ] }
            """)
        config.feature("patch", """
            { "id": "patch", "title": "Patch", "match": { "root": "hub:patch" },
              "operations": [
                { "kind": "static", "json": { "body": [
                    { "id": "a", "text": { "title": "A" } }, { "id": "b", "text": { "title": "B" } },
                    { "id": "c", "text": { "title": "C" } } ] } },
                { "kind": "patch", "set": { "a": { "text": { "subtitle": "sub" } }, "n": { "text": { "title": "New" } } },
                  "remove": ["b"], "move": { "c": 0 } } ] }
            """)
        config.feature("initial", """
            { "id": "initial", "title": "Initial", "match": { "root": "hub:initial" },
              "operations": [
                { "kind": "static", "json": { "body": [ { "id": "full", "text": { "title": "Full" } } ] },
                  "initial": { "body": [ { "id": "placeholder", "text": { "title": "Loading" } } ] } } ] }
            """)
        config.feature("always", """
            { "id": "always", "title": "Always", "match": { "root": "hub:always" }, "reload": "always",
              "operations": [ { "kind": "swift", "name": "countAlways" } ] }
            """)
        config.feature("never", """
            { "id": "never", "title": "Never", "match": { "root": "hub:never" }, "reload": "never",
              "operations": [ { "kind": "swift", "name": "countNever" } ] }
            """)
        config.feature("maxage", """
            { "id": "maxage", "title": "Max age", "match": { "root": "hub:maxage" }, "reload": { "maxAgeSeconds": 1 },
              "operations": [ { "kind": "swift", "name": "countMaxAge" } ] }
            """)
        config.feature("actions", """
            { "id": "actions", "title": "Actions", "match": { "root": "hub:actions" },
              "actionHandler": { "veto": ["test:vetoed"] },
              "operations": [
                { "kind": "static", "json": { "body": [
                    { "id": "row1", "text": { "title": "Row 1" }, "target": { "actions": ["test:no", "test:ok", "test:bump"] } },
                    { "id": "row2", "text": { "title": "Row 2" }, "target": { "uri": "hub:elsewhere", "actions": ["test:no"] } } ] } },
                { "kind": "swift", "name": "observer", "rescheduleOn": ["test:bump", "test:vetoed"] } ] }
            """)
        var rows: [String] = []
        for index in 0..<80 {
            rows.append(#"{ "id": "big\#(index)", "text": { "title": "A fairly long title for row \#(index)", "subtitle": "and a subtitle that repeats" } }"#)
        }
        config.feature("big", """
            { "id": "big", "title": "Big", "match": { "root": "hub:big" }, "reload": "never",
              "operations": [ { "kind": "static", "json": { "body": [ \(rows.joined(separator: ", ")) ] } } ] }
            """)
        config.feature("fallback", """
            { "id": "fallback", "title": "Fallback", "match": { "root": "hub:fallback" },
              "operations": [ { "kind": "static", "json": { "body": [
                { "id": "card1", "component": { "id": "custom:fancy", "category": "card" }, "text": { "title": "Fancy" } },
                { "id": "row1", "component": { "id": "default:row", "category": "row" }, "text": { "title": "Plain" } } ] } } ] }
            """)
        config.feature("connectivity", """
            { "id": "connectivity", "title": "Connectivity", "match": { "root": "hub:connectivity" }, "reload": "never",
              "operations": [ { "kind": "swift", "name": "countConnectivity" } ] }
            """)
        config.feature("slow-recover", """
            { "id": "slow-recover", "title": "Slow recover", "match": { "root": "hub:slow-recover" },
              "operations": [
                { "kind": "remote", "url": "\(upstream)/slow", "timeoutMs": 200 },
                { "kind": "recover", "json": { "body": [ { "id": "offline" } ] } } ] }
            """)
        config.feature("overlap", """
            { "id": "overlap", "title": "Overlap", "match": { "root": "hub:overlap" },
              "operations": [
                { "kind": "remote", "url": "\(upstream)/overlap?i=0", "timeoutMs": 40000 },
                { "kind": "remote", "url": "\(upstream)/overlap?i=1", "timeoutMs": 40000 } ] }
            """)
        config.feature("plus", """
            { "id": "plus", "title": "Plus", "match": { "uri": "hub:a+b" },
              "operations": [ { "kind": "static", "json": { "body": [ { "id": "plus" } ] } } ] }
            """)
        config.feature("titled", """
            { "id": "titled", "title": "Home", "titles": { "sv": "Hem" }, "match": { "root": "hub:titled" },
              "operations": [ { "kind": "static", "json": { "body": [ { "id": "t" } ] } } ] }
            """)
        config.feature("cached", """
            { "id": "cached", "title": "Cached", "match": { "root": "hub:cached" },
              "operations": [ { "kind": "remote", "url": "\(upstream)/cached" } ] }
            """)
        config.feature("wholeuri", """
            { "id": "wholeuri", "title": "Whole URI", "match": { "root": "hub:wholeuri" },
              "operations": [ { "kind": "remote", "url": "\(upstream)/echo?u={uri}&s={session}",
                                "headers": { "X-Api-Key": "k1" } } ] }
            """)
        config.feature("upstream404", """
            { "id": "upstream404", "title": "Upstream 404", "match": { "root": "hub:upstream404" },
              "operations": [ { "kind": "remote", "url": "\(upstream)/no-such-path" } ] }
            """)
        config.feature("flaky", """
            { "id": "flaky", "title": "Flaky", "match": { "root": "hub:flaky" },
              "operations": [ { "kind": "remote", "url": "\(upstream)/flaky", "retries": 2 } ] }
            """)
        config.feature("excluded", """
            { "id": "excluded", "title": "Excluded", "match": { "root": "hub:ex", "exclude": ["hub:ex:legacy"] },
              "operations": [ { "kind": "static", "json": { "body": [ { "id": "ex" } ] } } ] }
            """)
        config.feature("pattern", """
            { "id": "pattern", "title": "Pattern", "match": { "pattern": "hub:pat:[0-9]+" },
              "operations": [ { "kind": "static", "json": { "body": [ { "id": "pat" } ] } } ] }
            """)
        return config
    }
}

/// Starts the standard upstream and the standard hub, runs `body`, shuts both down.
@discardableResult
func withStandardHub<T>(
    server: String = TestConfig.defaultServer, transport: TestTransport = .memory,
    _ body: (HubClient, TestUpstream, Fixture) async throws -> T
) async throws -> T {
    let upstream = try makeStandardUpstream()
    let fixture = Fixture()
    do {
        let result = try await withHub(
            Fixture.config(upstream: upstream.base, server: server), extensions: fixture.extensions, transport: transport
        ) { client, _ in try await body(client, upstream, fixture) }
        upstream.stop()
        return result
    } catch {
        upstream.stop()
        throw error
    }
}
