import HubSync

/// Every metric of a process, registered at start-up and rendered in the Prometheus text
/// format (version 0.0.4).
public final class MetricsRegistry: Sendable {
    private enum Registered: Sendable {
        case counters(MetricFamily<Counter>)
        case gauges(MetricFamily<Gauge>)
        case histograms(MetricFamily<Histogram>)
        case collected(name: String, help: String, kind: String, collect: @Sendable () -> [(labels: [(String, String)], value: Double)])
    }

    private let families = Locked<[Registered]>([])
    private let names = Locked<Set<String>>([])

    public init() {}

    private func claim(_ name: String) {
        let inserted = names.withLock { $0.insert(name).inserted }
        precondition(inserted, "metric \(name) registered twice")
        precondition(Self.isValidName(name), "invalid metric name \(name)")
    }

    /// Registers a counter family.
    public func counter(_ name: String, help: String, labels: [String] = []) -> MetricFamily<Counter> {
        claim(name)
        let family = MetricFamily<Counter>(name: name, help: help, kind: .counter, labelNames: labels) { Counter() }
        families.withLock { $0.append(.counters(family)) }
        return family
    }

    /// Registers a gauge family.
    public func gauge(_ name: String, help: String, labels: [String] = []) -> MetricFamily<Gauge> {
        claim(name)
        let family = MetricFamily<Gauge>(name: name, help: help, kind: .gauge, labelNames: labels) { Gauge() }
        families.withLock { $0.append(.gauges(family)) }
        return family
    }

    /// Registers a histogram family.
    public func histogram(
        _ name: String, help: String, labels: [String] = [], bounds: [Double] = Histogram.defaultBounds
    ) -> MetricFamily<Histogram> {
        claim(name)
        let family = MetricFamily<Histogram>(name: name, help: help, kind: .histogram, labelNames: labels) {
            Histogram(bounds: bounds)
        }
        families.withLock { $0.append(.histograms(family)) }
        return family
    }

    /// Registers a gauge whose values are read at scrape time (e.g. open connections).
    public func collectedGauge(
        _ name: String, help: String, collect: @escaping @Sendable () -> [(labels: [(String, String)], value: Double)]
    ) {
        claim(name)
        families.withLock { $0.append(.collected(name: name, help: help, kind: "gauge", collect: collect)) }
    }

    /// Registers a counter whose values are read at scrape time from another component's
    /// running totals (e.g. sessions evicted).
    public func collectedCounter(
        _ name: String, help: String, collect: @escaping @Sendable () -> [(labels: [(String, String)], value: Double)]
    ) {
        claim(name)
        families.withLock { $0.append(.collected(name: name, help: help, kind: "counter", collect: collect)) }
    }

    /// The Prometheus text exposition of every metric.
    public func exposition() -> String {
        var output = ""
        output.reserveCapacity(4096)
        for family in families.withLock({ $0 }) {
            switch family {
            case .counters(let counters):
                Self.header(&output, counters.name, counters.help, "counter")
                for (values, counter) in counters.allChildren {
                    Self.sample(&output, counters.name, zip(counters.labelNames, values), Double(counter.value))
                }
            case .gauges(let gauges):
                Self.header(&output, gauges.name, gauges.help, "gauge")
                for (values, gauge) in gauges.allChildren {
                    Self.sample(&output, gauges.name, zip(gauges.labelNames, values), Double(gauge.value))
                }
            case .histograms(let histograms):
                Self.header(&output, histograms.name, histograms.help, "histogram")
                for (values, histogram) in histograms.allChildren {
                    let labels = Array(zip(histograms.labelNames, values))
                    for (bound, count) in zip(histogram.bounds, histogram.cumulativeCounts) {
                        Self.sample(&output, histograms.name + "_bucket", labels + [("le", Self.format(bound))], Double(count))
                    }
                    Self.sample(&output, histograms.name + "_bucket", labels + [("le", "+Inf")], Double(histogram.count))
                    Self.sample(&output, histograms.name + "_sum", labels, histogram.sum)
                    Self.sample(&output, histograms.name + "_count", labels, Double(histogram.count))
                }
            case .collected(let name, let help, let kind, let collect):
                Self.header(&output, name, help, kind)
                for (labels, value) in collect() { Self.sample(&output, name, labels, value) }
            }
        }
        return output
    }

    private static func header(_ output: inout String, _ name: String, _ help: String, _ kind: String) {
        output += "# HELP \(name) \(escapeHelp(help))\n# TYPE \(name) \(kind)\n"
    }

    private static func sample<S: Sequence<(String, String)>>(_ output: inout String, _ name: String, _ labels: S, _ value: Double) {
        output += name
        var first = true
        for (label, labelValue) in labels {
            output += first ? "{" : ","
            first = false
            output += label + "=\"" + escapeLabelValue(labelValue) + "\""
        }
        if !first { output += "}" }
        output += " " + format(value) + "\n"
    }

    /// Integers without a fraction; others in Swift's shortest form; infinities as Prometheus spells them.
    static func format(_ value: Double) -> String {
        if value == .infinity { return "+Inf" }
        if value == -.infinity { return "-Inf" }
        if value.isNaN { return "NaN" }
        if value == value.rounded(.towardZero), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    static func escapeLabelValue(_ value: String) -> String {
        guard value.contains(where: { $0 == "\\" || $0 == "\"" || $0 == "\n" }) else { return value }
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    static func escapeHelp(_ help: String) -> String {
        help.replacing("\\", with: "\\\\").replacing("\n", with: "\\n")
    }

    static func isValidName(_ name: String) -> Bool {
        guard let first = name.first, first.isLetter || first == "_" || first == ":" else { return false }
        return name.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "_" || $0 == ":" }
    }
}
