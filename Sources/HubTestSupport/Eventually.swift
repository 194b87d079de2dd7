/// Polls `condition` every 10 ms until it holds or `seconds` pass (a safety net a loaded machine
/// does not reach: it returns as soon as the condition holds); its last answer.
public func eventually(
    within seconds: Double = 60, _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try await condition()
}
