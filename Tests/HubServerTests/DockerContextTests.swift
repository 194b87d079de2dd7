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
        #expect(needed.contains("Examples/EmbeddedServer"))
        for path in needed {
            #expect(FileManager.default.fileExists(atPath: (BuildContext.root as NSString).appendingPathComponent(path)), "\(path)")
        }
        let copied = BuildContext.buildStageCopies(try BuildContext.read("Dockerfile"))
        #expect(BuildContext.missing(needed: needed, copied: copied) == [], "copied: \(copied)")
        let ignored = BuildContext.ignored(needed, dockerignore: try BuildContext.read(".dockerignore"))
        #expect(ignored == [], ".dockerignore excludes what the build needs")
    }

    @Test("the check notices a build stage without Tests/ (the bug of issue 18)")
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

    @Test("make run listens on 127.0.0.1 unless HUB_HOST says otherwise; the image on 0.0.0.0")
    func listenAddresses() throws {
        let makefile = try BuildContext.read("Makefile")
        #expect(makefile.contains("HUB_HOST=$${HUB_HOST:-127.0.0.1} .build/release/hub-server serve"))
        let dockerfile = try BuildContext.read("Dockerfile")
        #expect(dockerfile.contains("HUB_HOST=0.0.0.0"))
    }
}
