import ArgumentParser
import Foundation
import HubDemo
import HubEngine
import HubModel
import HubServer

/// `hub-server`: serve a config, validate one, or render a view without HTTP.
@main
struct HubServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hub-server",
        abstract: "A server runtime for server-driven UI (HubFramework view models over HTTP).",
        version: HubServerVersion.current,
        subcommands: [Serve.self, Validate.self, Render.self, DevToken.self],
        defaultSubcommand: Serve.self)
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the HTTP API for a config directory (default: $HUB_CONFIG or ./Config).",
        discussion: """
            Where it listens: the config's server.json "host" and "port" (the demo Config/: \
            127.0.0.1:8080; without a "host", 127.0.0.1, loopback only), unless --host and --port \
            or HUB_HOST and HUB_PORT say otherwise. `make run` sets HUB_HOST=127.0.0.1 unless you \
            set it; the Docker image and the files in deploy/ set HUB_HOST=0.0.0.0.

            ENVIRONMENT:
            \(EnvironmentVariable.helpText)
            """)

    @Option(name: .shortAndLong, help: "The config directory.") var config: String?
    @Option(help: "Override the listen port (also HUB_PORT).") var port: Int?
    @Option(help: "Override the listen address (also HUB_HOST).") var host: String?
    @Flag(help: "Do not watch the config directory; only SIGHUP reloads it (also HUB_CONFIG_WATCH=0, or reload.watch in server.json).")
    var noWatch = false

    func run() async throws {
        var environment = ProcessInfo.processInfo.environment
        if let port { environment["HUB_PORT"] = String(port) }
        if let host { environment["HUB_HOST"] = host }
        if noWatch { environment["HUB_CONFIG_WATCH"] = "0" }
        // A start-up failure (config, busy port, data directory, state store) is one line on
        // standard error and a non-zero exit: 78 (EX_CONFIG) for the config, 1 for the rest.
        let application: HubApplication
        do {
            application = try HubApplication.load(
                directory: config, extensions: DemoExtensions.make(), environment: environment)
        } catch {
            throw ExitCode(HubApplication.startupFailure(error, programName: "hub-server"))
        }
        do {
            try await application.run()
        } catch {
            // Nothing was served: no drain to log, the process ends here.
            throw ExitCode(HubApplication.startupFailure(error, programName: "hub-server"))
        }
    }
}

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a config directory; print every problem with its file and JSON path.")

    @Argument(help: "The config directory (default: $HUB_CONFIG or ./Config).") var directory: String?

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let path = ConfigLoader.directory(directory, environment: environment)
        do {
            // The same loading and engine construction as `serve` (Swift names, feature ids,
            // action namespaces), so a config `validate` accepts is one `serve` starts with.
            let extensions = DemoExtensions.make()
            let loaded = try ConfigLoader(
                swiftOperationNames: Set(extensions.operations.keys), swiftActionNames: Set(extensions.actionFactories.keys),
                environment: environment
            ).load(directory: path)
            try HubApplication.validate(loaded, extensions: extensions)  // writes nothing: no key, no state file
            for warning in loaded.warnings { print("warning: \(warning)") }
            print("OK: \(path): \(loaded.features.count) feature(s), \(loaded.schemas.count) schema(s), "
                + "\(loaded.toggles.count) toggle(s), \(loaded.actions.count) action namespace(s)")
        } catch let error as ConfigurationError {
            for issue in error.issues { print("\(issue.severity.rawValue): \(issue)") }
            let errors = error.issues.filter { $0.severity == .error }.count
            print("FAILED: \(path): \(errors) error(s)")
            throw ExitCode.failure
        }
    }
}

struct Render: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run a view's chain and print its JSON, without HTTP.")

    @Argument(help: "The view URI, e.g. hub:home.") var uri: String
    @Option(name: .shortAndLong, help: "The config directory.") var config: String?

    func run() async throws {
        let application = try HubApplication.load(directory: config, extensions: DemoExtensions.make())
        let state = try await application.engine.loadView(for: ViewRequest(viewURI: uri))
        if let failure = state.failure {
            FileHandle.standardError.write(Data("error: \(failure)\n".utf8))
            throw ExitCode.failure
        }
        print(state.viewModel?.jsonString ?? "{}")
    }
}
