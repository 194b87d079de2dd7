import HubEngine

/// The outcome of one config reload (``HubApplication/reloadConfiguration(trigger:)``).
public struct ConfigReloadResult: Sendable {
    /// `true` when the new config is being served; `false` when it was refused (the old one
    /// keeps serving) or another reload was under way.
    public let succeeded: Bool
    /// The errors that refused it, or the new config's warnings.
    public let issues: [ConfigIssue]
    /// What the engine did with the new definitions (`nil` when refused).
    public let engine: EngineUpdateReport?
    /// `server.json` keys that changed but keep their old value until a restart.
    public let restartRequired: [String]
}
