import HubHTTP

/// The HTTP API v1 (DESIGN.md).
enum Routes {
    /// `invalidation`: `POST /invalidate`, routed only when `invalidation.secrets` names one.
    static func makeRouter(state: ServerState, invalidation: InvalidationEndpoint? = nil) -> Router {
        let views = ViewEndpoints(state: state)
        let action = ActionEndpoint(state: state, views: views)
        let operational = OperationalEndpoints(state: state)
        var router = Router()
        router.add(.get, "/view", answer: views.getView)
        router.add(.delete, "/view", views.deleteView)
        router.add(.get, "/view/initial", views.getInitialView)
        router.add(.post, "/view/next-page", views.nextPage)
        router.add(.get, "/view/events", views.events)
        router.add(.post, "/action", action.perform)
        router.add(.get, "/health", operational.health)
        router.add(.get, "/ready", operational.ready)
        router.add(.get, "/metrics", operational.metrics)
        router.add(.get, "/features", operational.features)
        let contracts = ContractEndpoints()
        router.add(.get, "/openapi.json", contracts.openAPI)
        router.add(.get, "/schema/view-model.json", contracts.viewModelSchema)
        router.add(.get, "/schema/config/{file}", contracts.configSchema)
        if let invalidation {
            router.add(.post, "/invalidate", invalidation.invalidate)
        }
        if state.settings.previewEnabled {
            router.add(.get, "/preview", PreviewEndpoint(state: state).page)
        }
        return router
    }
}
