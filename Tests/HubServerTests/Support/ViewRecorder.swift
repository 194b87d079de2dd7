import Foundation
import HubTestSupport

/// Records every view the tests receive, for `make test`'s schema check: when
/// `HUB_TEST_VIEW_DIR` is set, each 200 JSON body of GET /view, GET /view/initial and
/// POST /view/next-page is written there as `view-*.json`, each POST /action body as
/// `action-*.json` (its `view` is the view), each `GET /view?explain=1` body as `explained-*.json`,
/// and each SSE `view` event's data as `event-*.json` and `patch` event's as `patch-*.json`.
/// `Tests/system/contracts/validate_views.py` validates them against docs/view-model.schema.json.
enum ViewRecorder {
    static let directory: String? = {
        guard let path = ProcessInfo.processInfo.environment["HUB_TEST_VIEW_DIR"], !path.isEmpty else { return nil }
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// Records `result` when it is a view response of `method target`.
    static func record(method: String, target: String, result: LoopbackResponse) {
        guard directory != nil, result.status == 200,
            result.header("Content-Type")?.hasPrefix("application/json") == true,
            result.header("Content-Encoding") == nil, !result.body.isEmpty
        else { return }
        let path = target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? target
        switch (method, path) {
        case ("GET", "/view") where target.contains("explain=1") || target.contains("explain=true"):
            write("explained", result.body)
        case ("GET", "/view"), ("GET", "/view/initial"), ("POST", "/view/next-page"): write("view", result.body)
        case ("POST", "/action"): write("action", result.body)
        default: break
        }
    }

    /// Records an SSE `view` event's data (`event-*.json`) or `patch` event's (`patch-*.json`).
    static func recordEvent(_ data: String, patch: Bool = false) {
        guard directory != nil else { return }
        write(patch ? "patch" : "event", Array(data.utf8))
    }

    private static func write(_ kind: String, _ body: [UInt8]) {
        guard let directory else { return }
        let file = "\(directory)/\(kind)-\(UUID().uuidString).json"
        _ = FileManager.default.createFile(atPath: file, contents: Data(body))
    }
}
