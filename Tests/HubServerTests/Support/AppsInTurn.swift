import HubModel
import HubTestSupport
import Testing

extension HubClient {
    /// Many apps asking for `uri` in turn: each of `ids` sends its `Hub-Client-Id`, `rounds`
    /// times over, and `read` takes what the test compares from each view. Every answer is
    /// expected to be 200 and, after the first round, what the app got the first time (an event
    /// loop remembers fewer apps than this, so later rounds are answered from what it remembers
    /// or by preparing, never another app's answer). Returns each app's reading.
    func appsInTurn(
        _ uri: String, ids: [String], rounds: Int = 3, read: (JSONValue) throws -> String
    ) async throws -> [String: String] {
        var seen: [String: String] = [:]
        for round in 0..<rounds {
            for id in ids {
                let response = try await view(uri, headers: [("Hub-Client-Id", id)])
                #expect(response.status == 200, "\(id), round \(round)")
                let reading = try read(try response.json())
                if round == 0 { seen[id] = reading } else { #expect(reading == seen[id], "\(id), round \(round)") }
            }
        }
        return seen
    }
}
