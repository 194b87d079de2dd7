import HubSync

/// Lets a content operation say which upstream content it built from: the URL it fetched and
/// the tags the upstream gave that content (`Surrogate-Key`, `Cache-Tag`). The chain keeps
/// them with the session and the chain memo entry, and ``ViewEngine/invalidate(_:)`` re-runs
/// the sessions that used content an invalidation names.
public enum ContentSources {
    /// Where the running operation's reports go (set by the chain around each operation).
    final class Recorder: Sendable {
        private let recorded = Locked<(urls: [String], tags: [String])>(([], []))

        /// What was reported during the run, `nil` when nothing was.
        var use: (urls: [String], tags: [String])? {
            recorded.withLock { $0.urls.isEmpty && $0.tags.isEmpty ? nil : $0 }
        }

        func record(url: String?, tags: [String]) {
            recorded.withLock { recorded in
                if let url, !recorded.urls.contains(url) { recorded.urls.append(url) }
                for tag in tags where !recorded.tags.contains(tag) { recorded.tags.append(tag) }
            }
        }
    }

    @TaskLocal static var current: Recorder?

    /// Records that the calling operation's content came from `url` (nil: from no URL, only
    /// tagged) with the content tags `tags`. Call it from `perform` or `appendContent` (the task
    /// the chain runs them in) of an operation that does not complete synchronously; elsewhere
    /// it does nothing.
    public static func report(url: String?, tags: [String] = []) {
        current?.record(url: url, tags: tags)
    }
}
