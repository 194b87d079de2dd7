import HubEngine
import HubHTTP
import HubModel

/// Turns HTTP requests into what the engine reads (DESIGN.md "Request headers the engine
/// reads"); the engine never sees an HTTP type.
enum RequestBridge {
    static func viewRequest(viewURI: String, from request: HTTPRequest) -> ViewRequest {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(request.headers.count)
        for (name, value) in request.headers { headers.append((name, value)) }
        let connectivity: Connectivity =
            request.headers["Hub-Connectivity"].map { $0.trimmed.lowercased() == "offline" ? .offline : .online } ?? .online
        return ViewRequest(
            viewURI: viewURI, headers: headers, connectivity: connectivity,
            languages: languages(request.headers["Accept-Language"]), client: request.headers["Hub-Client"],
            clientComponents: request.headers["Hub-Components"].map(components))
    }

    /// `Accept-Language` tags by descending q-value (q=0 dropped), `*` ignored.
    static func languages(_ header: String?) -> [String] {
        guard let header else { return [] }
        var weighted: [(tag: String, q: Double, position: Int)] = []
        for (position, part) in header.split(separator: ",").enumerated() {
            let pieces = part.split(separator: ";")
            let tag = String(pieces[0]).trimmed
            guard !tag.isEmpty, tag != "*" else { continue }
            var q = 1.0
            for parameter in pieces.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                if pair.count == 2, String(pair[0]).trimmed.lowercased() == "q" { q = Double(String(pair[1]).trimmed) ?? 0 }
            }
            if q > 0 { weighted.append((tag, q, position)) }
        }
        return weighted.sorted { $0.q != $1.q ? $0.q > $1.q : $0.position < $1.position }.map(\.tag)
    }

    /// `Hub-Components: ns:name, ns:name`.
    static func components(_ header: String) -> Set<ComponentIdentifier> {
        Set(header.split(separator: ",").compactMap { ComponentIdentifier(string: String($0).trimmed) })
    }
}

extension String {
    var trimmed: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
