import HubEngine
import HubModel
import Testing

@testable import HubServer

/// ``ListenerRenderings`` keeps at most 4 client variants per session (one client
/// opening streams with ever new `Hub-Components` values keeps no slots beyond them).
@Suite("Listener renderings bound")
struct ListenerRenderingsBoundTests {
    @Test("a session's first 4 variants share a rendering; a fifth renders for itself and keeps no slot")
    func variantsPerSession() {
        var builder = ViewModelBuilder()
        builder.title = "T"
        let model = builder.build()
        let tags = ViewTags(keys: .ephemeral())
        let renderings = ListenerRenderings()
        func render() -> RenderedView { RenderedView(bytes: Array(#"{"title":"T"}"#.utf8), tags: tags) }
        for index in 0..<ListenerRenderings.variantsPerSession {
            let key = ListenerRenderings.Key(session: "s", variant: "|v\(index)")
            let (first, fresh) = renderings.rendered(model, for: key, render: render)
            #expect(fresh)
            let (again, shared) = renderings.rendered(model, for: key, render: render)
            #expect(!shared && again === first, "the second listener of a variant shares the rendering")
        }
        let extra = ListenerRenderings.Key(session: "s", variant: "|v-extra")
        let (one, _) = renderings.rendered(model, for: extra, render: render)
        let (two, fresh) = renderings.rendered(model, for: extra, render: render)
        #expect(fresh && one !== two, "a fifth variant renders for itself")
        #expect(renderings.count == ListenerRenderings.variantsPerSession)
        // Another session has its own four.
        _ = renderings.rendered(model, for: .init(session: "t", variant: "|v-extra"), render: render)
        #expect(renderings.count == ListenerRenderings.variantsPerSession + 1)
    }
}
