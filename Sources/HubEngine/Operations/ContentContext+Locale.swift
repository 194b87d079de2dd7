extension ContentContext {
    /// The run's negotiated locale (``ViewRequest/locale``): one of `server.json`
    /// `locales.supported`, the one the session was opened with; `nil` without locales. The chain
    /// memo keys on it, so an operation's memoization key need not name it.
    public var locale: String? { request.locale }
}
