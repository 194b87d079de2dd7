// HubModel benchmarks: serialize and parse a 60-component (~30 KB) view model.
// Run: make bench-model   (swift run -c release HubModelBenchmarks)
import Foundation
import HubModel
import HubPrimitives

/// A view with `count` body components shaped like a real feed (~500 bytes each).
func makeDocument(count: Int) -> JSONValue {
    var body: [JSONValue] = []
    for index in 0..<count {
        body.append([
            "id": .string("item-\(index)"),
            "component": ["id": "default:card", "category": "card"],
            "text": [
                "title": .string("Item number \(index): a title long enough to look real"),
                "subtitle": .string("Subtitle for item \(index) with \"quotes\" and ünïcödé"),
                "description": "A description that is a sentence or two long, as descriptions in feeds tend to be.",
            ],
            "images": [
                "main": ["uri": .string("https://images.example.com/items/\(index)/main.jpg"), "placeholder": "album"],
                "icon": "playlist",
            ],
            "target": [
                "uri": .string("hub:item:\(index)"),
                "actions": ["cart:add", "hub:reload"],
            ],
            "metadata": ["position": .int(index), "score": .double(Double(index) * 1.5)],
            "custom": ["trackable": true, "tags": ["a", "b"]],
        ])
    }
    return [
        "id": "bench",
        "title": "Benchmark view",
        "header": ["component": ["id": "default:header", "category": "header"], "text": ["title": "Header"]],
        "body": .array(body),
    ]
}

/// Runs `body` `iterations` times per round over several rounds; prints the median per-call time.
func measure(_ name: String, iterations: Int, rounds: Int = 9, _ body: () -> Int) {
    var perCall: [Double] = []
    var sink = 0
    for _ in 0..<rounds {
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<iterations { sink &+= body() }
        let elapsed = clock.now - start
        perCall.append(elapsed.inMilliseconds * 1000 / Double(iterations))
    }
    perCall.sort()
    let median = perCall[perCall.count / 2]
    print(
        "\(name + String(repeating: " ", count: max(0, 44 - name.count))) median \(format2(median)) us"
            + "  (min \(format2(perCall.first!)), max \(format2(perCall.last!)); sink \(sink % 10))")
}

func format2(_ value: Double) -> String {
    let scaled = (value * 100).rounded() / 100
    return "\(scaled)"
}

let document = makeDocument(count: 60)
let bytes = document.jsonBytes
let builder = try ViewModelBuilder(json: document)
let model = builder.build()
let serialized = model.jsonBytes()
print("view: \(model.body.count) body components, \(serialized.count) bytes serialized")

measure("serialize ViewModel -> JSON bytes", iterations: 2000) { model.jsonBytes(capacityHint: 32 * 1024).count }
measure("parse JSON bytes -> JSONValue", iterations: 1000) {
    (try? JSONParser().parse(serialized)).map { _ in 1 } ?? 0
}
measure("apply JSONValue -> ViewModelBuilder", iterations: 1000) {
    (try? ViewModelBuilder(json: document))?.body.count ?? 0
}
measure("build ViewModelBuilder -> ViewModel", iterations: 1000) { builder.build().body.count }
measure("parse + apply + build + serialize", iterations: 500) {
    var fresh = ViewModelBuilder()
    try? fresh.addJSON(bytes)
    return fresh.build().jsonBytes(capacityHint: 32 * 1024).count
}
measure("snapshot copy + mutate one component", iterations: 20000) {
    var copy = builder
    copy.body["item-7"].title = "changed"
    return copy.body.count
}
