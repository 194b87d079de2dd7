import Foundation
import Testing

/// Where the image keeps what must outlive a container (the SQLite state, a generated session
/// key), read from the files a user follows: the Dockerfile's `HUB_DATA_DIR`, the volume
/// docs/DEPLOYMENT.md tells them to mount, and the mounts of `deploy/compose.yaml` and
/// `deploy/kubernetes/deployment.yaml`. A doc once said `/data` while the image used another
/// directory, so following it lost the state and the key on every restart.
@Suite("Data directory: Dockerfile, DEPLOYMENT.md and manifests agree")
struct DataVolumeTests {
    /// The value of `HUB_DATA_DIR` in the Dockerfile's `ENV` lines.
    static func imageDataDirectory(_ dockerfile: String) -> String? {
        for line in dockerfile.split(separator: "\n") where line.hasPrefix("ENV ") {
            for word in line.split(separator: " ") where word.hasPrefix("HUB_DATA_DIR=") {
                return String(word.dropFirst("HUB_DATA_DIR=".count))
            }
        }
        return nil
    }

    /// The container side of every `-v SOURCE:TARGET[:OPTIONS]` of `docker run` lines in `text`.
    static func dockerRunMountTargets(_ text: String) -> [String] {
        var targets: [String] = []
        for line in text.split(separator: "\n") where line.contains("docker run") {
            let words = line.split(separator: " ")
            for (index, word) in words.enumerated() where word == "-v" && index + 1 < words.count {
                let parts = words[index + 1].split(separator: ":")
                if parts.count >= 2 { targets.append(String(parts[1])) }
            }
        }
        return targets
    }

    /// Every absolute path in backquotes in `text` (`` `/var/lib/x` ``).
    static func quotedPaths(_ text: String) throws -> [String] {
        let regex = try NSRegularExpression(pattern: #"`(/[^`\s]*)`"#)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    /// A hub container of a manifest: where it mounts volumes, its environment, whether its
    /// root filesystem is read-only.
    struct Container {
        var mounts: [String] = []
        var environment: [String: String] = [:]
        var readOnlyRoot = false
    }

    /// The replicas' container in `deploy/compose.yaml` (the `x-replica` anchor every hub service uses).
    static func composeReplica(_ compose: String) throws -> Container {
        let start = try #require(compose.range(of: "\nx-replica: &replica\n"))
        let end = try #require(compose.range(of: "\nservices:\n", range: start.upperBound..<compose.endIndex))
        var container = Container()
        var section = ""
        for line in compose[start.upperBound..<end.lowerBound].split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#") { continue }
            if line.hasPrefix("  ") && !line.hasPrefix("   ") {
                section = String(trimmed.prefix { $0 != ":" })
                if trimmed.hasPrefix("read_only:") { container.readOnlyRoot = trimmed.hasPrefix("read_only: true") }
                continue
            }
            if section == "volumes", trimmed.hasPrefix("- ") {
                let parts = trimmed.dropFirst(2).split(separator: ":")
                if parts.count >= 2 { container.mounts.append(String(parts[1])) }
            } else if section == "environment", let colon = trimmed.firstIndex(of: ":") {
                let value = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                container.environment[String(trimmed[..<colon])] = String(value.split(separator: "#").first ?? "")
                    .trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
            }
        }
        return container
    }

    /// The `hub-server` container of `deploy/kubernetes/deployment.yaml`.
    static func kubernetesContainer(_ deployment: String) -> Container {
        var container = Container()
        var pendingName: String?
        for line in deployment.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("mountPath:") {
                container.mounts.append(trimmed.dropFirst("mountPath:".count).trimmingCharacters(in: .whitespaces))
            } else if trimmed.hasPrefix("readOnlyRootFilesystem:") {
                container.readOnlyRoot = trimmed.hasSuffix("true")
            } else if trimmed.hasPrefix("- name: HUB_") {
                pendingName = String(trimmed.dropFirst("- name: ".count))
            } else if let name = pendingName {
                if trimmed.hasPrefix("value:") {
                    container.environment[name] = trimmed.dropFirst("value:".count)
                        .trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
                } else if trimmed.hasPrefix("valueFrom:") {
                    container.environment[name] = "(secret)"
                }
                pendingName = nil
            }
        }
        return container
    }

    @Test("DEPLOYMENT.md mounts the data volume where the Dockerfile's HUB_DATA_DIR is, and the image creates it for its user")
    func documentedVolumeIsTheImages() throws {
        let dockerfile = try BuildContext.read("Dockerfile")
        let dataDirectory = try #require(Self.imageDataDirectory(dockerfile), "the Dockerfile sets no HUB_DATA_DIR")
        #expect(dataDirectory.hasPrefix("/") && dataDirectory != "/")
        #expect(dockerfile.contains("install -d -o hub -g hub -m 0700 \(dataDirectory)"), "the image makes \(dataDirectory) for its user")

        let deployment = try BuildContext.read("docs/DEPLOYMENT.md")
        let targets = Self.dockerRunMountTargets(deployment)
        #expect(targets.contains(dataDirectory), "DEPLOYMENT.md shows no docker run -v ...:\(dataDirectory): \(targets)")
        for target in targets where !target.hasPrefix("/app/Config") {
            #expect(target == dataDirectory, "DEPLOYMENT.md mounts a volume at \(target), the image keeps its data in \(dataDirectory)")
        }
        // Every data directory the page names is the image's (no `/data`, no other guess).
        let named = try Self.quotedPaths(deployment).filter { $0 == "/data" || $0.hasPrefix("/data/") || $0.hasPrefix("/var/lib/hub") }
        #expect(named.contains(dataDirectory))
        #expect(named.allSatisfy { $0 == dataDirectory }, "\(named)")
        #expect(deployment.contains("`HUB_DATA_DIR=\(dataDirectory)`"))
    }

    @Test("the manifests mount nothing but the config, /tmp and the data directory, and without a data volume keep nothing on disk")
    func manifestsAgree() throws {
        let dataDirectory = try #require(Self.imageDataDirectory(try BuildContext.read("Dockerfile")))
        let compose = try Self.composeReplica(try BuildContext.read("deploy/compose.yaml"))
        let kubernetes = Self.kubernetesContainer(try BuildContext.read("deploy/kubernetes/deployment.yaml"))
        #expect(compose.mounts == ["/app/Config/server.json"], "\(compose.mounts)")
        #expect(kubernetes.mounts.contains("/etc/hubserver") && kubernetes.environment["HUB_CONFIG"] == "/etc/hubserver")
        for (name, container) in [("deploy/compose.yaml", compose), ("deploy/kubernetes/deployment.yaml", kubernetes)] {
            let config = container.environment["HUB_CONFIG"] ?? "/app/Config"
            for mount in container.mounts {
                #expect(mount.hasPrefix(config) || mount == "/tmp" || mount == dataDirectory,
                        "\(name) mounts \(mount): not the config, /tmp or the image's data directory \(dataDirectory)")
            }
            if let directory = container.environment["HUB_DATA_DIR"] {
                #expect(directory == dataDirectory, "\(name) sets HUB_DATA_DIR=\(directory), the image \(dataDirectory)")
            }
            // No volume at the data directory (and a read-only root): nothing may need it, so the
            // keys come from the environment and the state from PostgreSQL.
            if !container.mounts.contains(dataDirectory) {
                #expect(container.readOnlyRoot, "\(name)")
                #expect(container.environment["HUB_SESSION_KEYS"] != nil, "\(name) would generate a key it cannot keep")
                #expect(container.environment["HUB_STATE_BACKEND"] == "postgres", "\(name) would keep SQLite state it loses")
            }
        }
    }

    @Test("the readers find a wrong volume: a doc mounting /data, a manifest mounting another directory")
    func readersNoticeAMismatch() throws {
        #expect(Self.imageDataDirectory("FROM x\nENV HUB_CONFIG=/app/Config HUB_DATA_DIR=/srv/hub\n") == "/srv/hub")
        #expect(Self.dockerRunMountTargets("docker run -p 8080:8080 -v state:/data hubserver\n`docker run -v $PWD/C:/app/Config:ro x`")
            == ["/data", "/app/Config"])
        #expect(try Self.quotedPaths("the image uses `/data`: mount a volume at `/var/lib/x` (`HUB_DATA_DIR`)\n```sh\nls /y\n```")
            == ["/data", "/var/lib/x"])
        let compose = """

            x-replica: &replica
              environment:
                HUB_STATE_BACKEND: postgres   # shared
                HUB_DATA_DIR: "/data"
              read_only: true
              volumes:
                # a comment
                - hub-data:/data
                - ./server.json:/app/Config/server.json:ro

            services:
              hub1: *replica
            """
        let replica = try Self.composeReplica(compose)
        #expect(replica.mounts == ["/data", "/app/Config/server.json"])
        #expect(replica.environment == ["HUB_STATE_BACKEND": "postgres", "HUB_DATA_DIR": "/data"])
        #expect(replica.readOnlyRoot)
        let deployment = """
                  env:
                    - name: HUB_DATA_DIR
                      value: /data
                    - name: HUB_SESSION_KEYS
                      valueFrom:
                  securityContext:
                    readOnlyRootFilesystem: false
                  volumeMounts:
                    - name: data
                      mountPath: /data
            """
        let container = Self.kubernetesContainer(deployment)
        #expect(container.mounts == ["/data"] && container.environment == ["HUB_DATA_DIR": "/data", "HUB_SESSION_KEYS": "(secret)"])
        #expect(!container.readOnlyRoot)
    }
}
