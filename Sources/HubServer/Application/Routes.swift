import HubHTTP

/// The HTTP API v1 (DESIGN.md).
enum Routes {
    /// `invalidation`: `POST /invalidate`, routed only when `invalidation.secrets` names one.
    static func makeRouter(shared: SharedServices, invalidation: InvalidationEndpoint? = nil) -> Router {
        let views = ViewEndpoints(shared: shared)
        let action = ActionEndpoint(shared: shared, views: views)
        let operational = OperationalEndpoints(shared: shared)
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
        if shared.settings.previewEnabled {
            router.add(.get, "/preview", PreviewEndpoint(shared: shared).page)
        }
        return router
    }
}
