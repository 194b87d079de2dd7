import Foundation

extension HubApplication {
    /// An app's whole `main`: loads the config directory (`directory`, else `$HUB_CONFIG`, else
    /// `./Config`) with `extensions`, serves it until SIGTERM or SIGINT, drains, and exits 0.
    /// Any start-up failure (an invalid or unreadable config, a busy port, a data directory it
    /// cannot write, a state store it cannot open) exits non-zero with one line on standard
    /// error naming the cause, prefixed by `programName`: 78 (`EX_CONFIG`) for the config, 1 for
    /// the rest. No backtrace: these are the operator's to fix, not bugs.
    ///
    /// ```swift
    /// await HubApplication.main(extensions: MyExtensions.make(), programName: "my-app")
    /// ```
    public static func main(
        directory: String? = nil, extensions: SwiftExtensions,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        programName: String = (CommandLine.arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "hub-server")
    ) async -> Never {
        let application: HubApplication
        do {
            application = try HubApplication.load(directory: directory, extensions: extensions, environment: environment)
        } catch {
            exit(startupFailure(error, programName: programName))
        }
        do {
            try await application.run()
        } catch {
            // Nothing was served: no drain to log, the process ends here.
            exit(startupFailure(error, programName: programName))
        }
        exit(0)
    }

    /// Writes `error` as `program: cause` to standard error; returns the exit status: 78
    /// (`EX_CONFIG`) for a ``ConfigurationError``, 1 otherwise. For a `main` of your own.
    public static func startupFailure(_ error: any Error, programName: String) -> Int32 {
        let text = "\(programName): \(error)"
        FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
        return error is ConfigurationError ? 78 : 1
    }
}
