/// A session token as a client sent it (`Hub-Session`), read once per request by
/// ``ViewEngine/presentedToken(_:)``: the session this process holds for exactly that text (the
/// text it issued, younger than the maximum age), or else the token verified (its MAC, its age,
/// not revoked: ``ViewEngine/verify(_:)``) or why it was refused. Every engine call about the
/// request's session takes this value, so no step reads or verifies the text again.
public struct PresentedToken: Sendable {
    /// The text the client sent.
    public let text: String
    /// The session held here for exactly this text, and its published view when it has one.
    let held: (session: ViewSession, settled: SettledView?)?
    /// When no session is held for the text: the verified token, or why it was refused (counted
    /// once, in ``EngineCounters/rejected(_:)``). `nil` for a held session: the text is the one
    /// the server issued, so it is not verified again.
    let verification: Result<SessionToken, SessionToken.Rejection>?
    /// Why the request's user may not use the session the token names (its feature's access
    /// rule refuses their claims): the request must be refused with it (403), whatever else.
    public let refusal: EngineError?

    init(
        text: String, held: (session: ViewSession, settled: SettledView?)?,
        verification: Result<SessionToken, SessionToken.Rejection>?, refusal: EngineError? = nil
    ) {
        self.text = text
        self.held = held
        self.verification = verification
        self.refusal = refusal
    }

    /// The session this process holds for exactly this token text.
    public var heldSession: ViewSession? { held?.session }

    /// The token the text is: the held session's (the same text) or the verified one; `nil`
    /// when it was refused.
    public var token: SessionToken? {
        if let held { return held.session.token }
        if case .success(let token)? = verification { return token }
        return nil
    }

    /// Why the token was refused; `nil` when it names a session (held, or verified).
    public var rejection: SessionToken.Rejection? {
        if case .failure(let reason)? = verification { return reason }
        return nil
    }
}
