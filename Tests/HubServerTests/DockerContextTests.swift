import Foundation
import Testing

/// The Docker image is checked by reading (no Docker engine here): its build stage must copy
/// every path `Package.swift` declares, and the listen address must be loopback for `make run`
/// but every interface in the image.
@Suite("Docker build context")
struct DockerContextTests {
    @Test("the Dockerfile's build stage copies every path the manifest's targets need")
    func buildStageCopiesManifestPaths() throws {
        let needed = BuildContext.manifestPaths(try BuildContext.read("Package.swift"))
        #expect(needed.contains("Sources/HubServer"))
        #expect(needed.contains("Tests/HubServerTests"))
        for path in needed {
            #expect(FileManager.default.fileExists(atPath: (BuildContext.root as NSString).appendingPathComponent(path)), "\(path)")
        }
        let copied = BuildContext.buildStageCopies(try BuildContext.read("Dockerfile"))
        #expect(BuildContext.missing(needed: needed, copied: copied) == [], "copied: \(copied)")
        let ignored = BuildContext.ignored(needed, dockerignore: try BuildContext.read(".dockerignore"))
        #expect(ignored == [], ".dockerignore excludes what the build needs")
    }

    @Test(".dockerignore keeps every local build, tool and output folder out of the build context")
    func dockerignoreExcludesLocalFolders() throws {
        let dockerignore = try BuildContext.read(".dockerignore")
        let local = [
            ".build/debug", ".build-tsan/release", ".build_fuzz/x", ".swiftpm/configuration", ".venv/bin/python", ".git/HEAD",
            "Benchmarks/bench/results/20260101T000000Z/table.md", "Fuzz/out/json", "Fuzz/corpus-http/a", "Fuzz/crash-1",
            "Examples/Starter/.build/debug",
        ]
        #expect(BuildContext.ignored(local, dockerignore: dockerignore) == local)
        // Nested build folders (the benchmark's Hummingbird app, a starter built in place).
        #expect(dockerignore.split(separator: "\n").contains("**/.build"))
    }

    @Test("the check notices a build stage without Tests/ (a bug found once: the build stage lacked Tests/)")
    func checkFindsAMissingPath() {
        let manifest = #"""
            .target(name: "A", dependencies: []),
            .executableTarget(name: "tool", path: "Examples/Tool", swiftSettings: s),
            .testTarget(name: "ATests", dependencies: ["A"]),
            """#
        let dockerfile = """
            FROM swift:6.1 AS build
            COPY Package.swift ./
            COPY Sources ./Sources
            COPY --chown=1:1 Examples \\
                 ./Examples
            FROM debian:bookworm-slim
            COPY Tests ./Tests
            COPY --from=build /build/a /a
            """
        let needed = BuildContext.manifestPaths(manifest)
        #expect(needed == ["Package.swift", "Sources/A", "Examples/Tool", "Tests/ATests"])
        #expect(BuildContext.buildStageCopies(dockerfile) == ["Package.swift", "Sources", "Examples"])
        #expect(BuildContext.missing(needed: needed, copied: BuildContext.buildStageCopies(dockerfile)) == ["Tests/ATests"])
        #expect(BuildContext.missing(needed: needed, copied: ["."]) == [])
        #expect(BuildContext.ignored(["Tests/ATests", ".build/x"], dockerignore: ".build\n.build-*\n") == [".build/x"])
    }

    @Test("make run, the binary and the starter listen on 127.0.0.1 unless HUB_HOST says otherwise; the image on 0.0.0.0")
    func listenAddresses() throws {
        let makefile = try BuildContext.read("Makefile")
        #expect(makefile.contains("HUB_HOST=$${HUB_HOST:-127.0.0.1} .build/release/hub-server serve"))
        let dockerfile = try BuildContext.read("Dockerfile")
        #expect(dockerfile.contains("HUB_HOST=0.0.0.0"))
        // `hub-server serve`, `swift run` and an embedded app bind what server.json says.
        for path in ["Config/server.json", "Examples/Starter/Config/server.json"] {
            let settings = try JSONSerialization.jsonObject(with: Data(try BuildContext.read(path).utf8)) as? [String: Any]
            #expect(settings?["host"] as? String == "127.0.0.1", "\(path)")
        }
    }
}
