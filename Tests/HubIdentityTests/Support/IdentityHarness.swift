import Foundation
import HubIdentity
import HubSync
import HubTestSupport
import HubUpstream

/// What a test's JWKS (or discovery) endpoint answers: a status and a body per path, changed
/// by the test between calls, optionally held behind a gate.
final class KeyServer: Sendable {
    struct Answer: Sendable {
        var status = 200
        var body: [UInt8] = []
    }

    private let answers = Locked<[String: Answer]>([:])
    private let gate = Locked<ThreadGate?>(nil)
    let upstream: TestUpstream

    init() throws {
        let answers = self.answers
        let gate = self.gate
        upstream = try TestUpstream { request in
            gate.withLock { $0 }?.wait()
            let answer = answers.withLock { $0[request.path] } ?? Answer(status: 404, body: Array("{}".utf8))
            return .respond(status: answer.status, headers: [("Content-Type", "application/json")], body: answer.body)
        }
    }

    deinit { upstream.stop() }

    /// Answers `path` with `body` and `status` from now on.
    func serve(_ path: String, _ body: [UInt8], status: Int = 200) {
        answers.withLock { $0[path] = Answer(status: status, body: body) }
    }

    /// Holds every answer until `held` opens (nil: answer at once).
    func hold(_ held: ThreadGate?) { gate.withLock { $0 = held } }

    /// How many requests reached `path`.
    func fetches(_ path: String) -> Int { upstream.log.count(path: path) }

    func url(_ path: String) -> String { upstream.url(path) }
}

/// Collects what ``IdentityEvents`` report.
final class EventRecorder: Sendable {
    private let verified = Locked<[String]>([])
    private let refreshed = Locked<[Bool]>([])
    private let reuses = Locked(0)
    private let lines = Locked<[String]>([])

    var events: IdentityEvents {
        IdentityEvents(
            verified: { label in self.verified.withLock { $0.append(label) } },
            reused: { self.reuses.withLock { $0 += 1 } },
            refreshed: { ok in self.refreshed.withLock { $0.append(ok) } },
            log: { line in self.lines.withLock { $0.append(line) } })
    }

    var verifications: [String] { verified.withLock { $0 } }
    var refreshes: [Bool] { refreshed.withLock { $0 } }
    var reused: Int { reuses.withLock { $0 } }
    var logLines: [String] { lines.withLock { $0 } }
}

/// A client of its own for the verifier, as the server makes one: no HTTP cache.
/// Timeouts far beyond any test's wait: a fetch a test holds (``ThreadGate``) on a loaded
/// machine must not time out before the test releases it.
func identityClient() -> CurlUpstreamClient {
    CurlUpstreamClient(
        configuration: UpstreamConfiguration(timeout: .seconds(60), connectTimeout: .seconds(10), cacheEntries: 0))
}

/// The claims of a token valid at `clock`'s time for `issuer` and audience `hub`.
func claims(
    issuer: String, subject: String = "user-1", at clock: ManualClock, lifetime: Double = 600, extra: [String: Any] = [:]
) -> [String: Any] {
    var values: [String: Any] = [
        "iss": issuer, "sub": subject, "aud": "hub", "iat": Int(clock.wallSeconds), "exp": Int(clock.wallSeconds + lifetime),
    ]
    values.merge(extra) { _, new in new }
    return values
}
