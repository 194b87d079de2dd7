extension ViewSession {
    /// `request` read in the session's own ``locale``: a held session keeps the locale it was
    /// opened with, whatever a later request's `Hub-Locale` or `Accept-Language` negotiates (its
    /// cached views, memo entries and upstream responses stay those of one locale).
    public nonisolated func pinned(_ request: ViewRequest) -> ViewRequest {
        request.locale == locale ? request : request.with(locale: locale)
    }
}
