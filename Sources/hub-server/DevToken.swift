import ArgumentParser
import Foundation
import HubDemo
import HubServer

/// `hub-server dev-token --subject alice [--claim plan=premium]`: a bearer token of the demo's
/// development issuer, for trying user features with curl.
struct DevToken: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev-token",
        abstract: "Print a bearer token of the config's development issuer (identity.jwt \"jwks\": \"dev\").",
        discussion: """
            Reads the config directory and data directory exactly as `serve` does (HUB_CONFIG, \
            HUB_DATA_DIR) and signs with the development key kept there (made on first use). \
            Refuses to run for any other issuer. The token is alone on the last line:
              TOKEN=$(hub-server dev-token --subject alice | tail -1)
            """)

    @Option(name: .shortAndLong, help: "The config directory.") var config: String?
    @Option(help: "The user's subject (sub).") var subject: String
    @Option(help: "A claim as NAME=VALUE (repeatable), e.g. plan=premium.") var claim: [String] = []
    @Option(help: "How long the token is valid, in seconds.") var lifetime = 3600

    func validate() throws {
        guard !subject.isEmpty else { throw ValidationError("--subject must not be empty") }
        guard (60...86_400).contains(lifetime) else { throw ValidationError("--lifetime must be 60 to 86400 seconds") }
        for entry in claim where !entry.contains("=") || entry.hasPrefix("=") {
            throw ValidationError("--claim '\(entry)' must be NAME=VALUE")
        }
    }

    func run() async throws {
        var claims: [String: String] = [:]
        for entry in claim {
            let parts = entry.split(separator: "=", maxSplits: 1)
            claims[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        do {
            // The loading of `serve` (its Swift names, its environment), without starting anything.
            let environment = ProcessInfo.processInfo.environment
            let extensions = DemoExtensions.make()
            let loaded = try ConfigLoader(
                swiftOperationNames: Set(extensions.operations.keys), swiftActionNames: Set(extensions.actionFactories.keys),
                environment: environment
            ).load(directory: ConfigLoader.directory(config, environment: environment))
            let token = try await HubApplication.developmentToken(
                configuration: loaded, subject: subject, claims: claims, lifetimeSeconds: lifetime)
            FileHandle.standardError.write(Data("# \(subject): a development token, valid \(lifetime) s\n".utf8))
            print(token)
        } catch let error as DevelopmentTokenError {
            FileHandle.standardError.write(Data("hub-server dev-token: \(error)\n".utf8))
            throw ExitCode.failure
        } catch {
            throw ExitCode(HubApplication.startupFailure(error, programName: "hub-server dev-token"))
        }
    }
}
