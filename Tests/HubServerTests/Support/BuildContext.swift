import Foundation

/// What the Docker build stage needs from the repository, read from `Package.swift`, and what
/// it copies, read from the `Dockerfile`: a check by reading, since no Docker engine runs here.
enum BuildContext {
    /// The repository root (this file is `Tests/HubServerTests/Support/BuildContext.swift`).
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The text of `path` relative to the repository root.
    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: (root as NSString).appendingPathComponent(path), encoding: .utf8)
    }

    /// Every directory the manifest's targets need: an explicit `path:`, else `Sources/NAME`
    /// (`Tests/NAME` for a test target). SwiftPM refuses a manifest when any is missing, even
    /// to build one product. The manifest itself is listed first.
    static func manifestPaths(_ manifest: String) -> [String] {
        var paths = ["Package.swift"]
        let kinds = [".target(", ".executableTarget(", ".testTarget(", ".systemLibrary(", ".binaryTarget(", ".plugin(", ".macro("]
        var rest = Substring(manifest)
        while let start = kinds.compactMap({ rest.range(of: $0) }).min(by: { $0.lowerBound < $1.lowerBound }) {
            let kind = String(rest[start])
            rest = rest[start.upperBound...]
            let nextStart = kinds.compactMap { rest.range(of: $0)?.lowerBound }.min() ?? rest.endIndex
            let call = rest[..<nextStart]
            guard let name = stringArgument("name", in: call) else { continue }
            if let path = stringArgument("path", in: call) {
                paths.append(path)
            } else {
                paths.append((kind == ".testTarget(" ? "Tests/" : "Sources/") + name)
            }
        }
        return paths
    }

    /// The value of `label: "..."` in `call`, if any.
    private static func stringArgument(_ label: String, in call: Substring) -> String? {
        guard let labelRange = call.range(of: "\(label): \"") else { return nil }
        let valueStart = labelRange.upperBound
        guard let end = call[valueStart...].firstIndex(of: "\"") else { return nil }
        return String(call[valueStart..<end])
    }

    /// The sources of the build stage's `COPY`/`ADD` instructions (the first stage: from the
    /// first `FROM` to the next), without flags and the destination; `--from=` copies are skipped.
    static func buildStageCopies(_ dockerfile: String) -> [String] {
        var sources: [String] = []
        var stages = 0
        var pending = ""
        for rawLine in dockerfile.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") { continue }
            pending += line.hasSuffix("\\") ? String(line.dropLast()) + " " : line
            if line.hasSuffix("\\") { continue }
            defer { pending = "" }
            let words = pending.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let instruction = words.first?.uppercased() else { continue }
            if instruction == "FROM" { stages += 1 }
            guard stages == 1, instruction == "COPY" || instruction == "ADD" else { continue }
            let arguments = words.dropFirst()
            if arguments.contains(where: { $0.hasPrefix("--from") }) { continue }
            let plain = arguments.filter { !$0.hasPrefix("--") }
            sources += plain.dropLast().map { $0.hasPrefix("./") ? String($0.dropFirst(2)) : $0 }
        }
        return sources
    }

    /// `needed` paths that no copied source covers (a source covers itself and what is under it; `.` covers all).
    static func missing(needed: [String], copied: [String]) -> [String] {
        let normalized = copied.map { $0.hasSuffix("/") && $0.count > 1 ? String($0.dropLast()) : $0 }
        return needed.filter { path in
            !normalized.contains { source in source == "." || path == source || path.hasPrefix(source + "/") }
        }
    }

    /// `paths` that a `.dockerignore` pattern (a plain path or a `prefix*` pattern) excludes.
    static func ignored(_ paths: [String], dockerignore: String) -> [String] {
        let patterns = dockerignore.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") && !$0.hasPrefix("!") }
        return paths.filter { path in
            patterns.contains { pattern in
                if pattern.hasSuffix("*") { return path.hasPrefix(String(pattern.dropLast())) }
                return path == pattern || path.hasPrefix(pattern + "/")
            }
        }
    }
}
