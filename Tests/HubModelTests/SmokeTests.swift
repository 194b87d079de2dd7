import HubModel
import Testing

@Test func roundTripSmoke() throws {
    let json = #"{"id":"v","title":"T","body":[{"id":"a","text":{"title":"A"}}]}"#
    var builder = ViewModelBuilder()
    try builder.addJSON(Array(json.utf8))
    #expect(builder.build().jsonString == #"{"id":"v","title":"T","body":[{"id":"a","component":{"id":"default:row","category":"row"},"text":{"title":"A"}}]}"#)
}
