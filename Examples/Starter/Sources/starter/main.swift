// Serves Config/ (or $HUB_CONFIG) with this app's Swift operation and action: `swift run`,
// then open http://localhost:8080/preview?uri=starter:hello or
// curl 'localhost:8080/view?uri=starter:hello'.
import Foundation
import Greeting
import HubServer

let usage = """
    USAGE: starter

    Serves the config directory ./Config (or $HUB_CONFIG) with this app's Swift extensions.
    It listens where Config/server.json says (127.0.0.1:8080); HUB_HOST and HUB_PORT override
    it (HUB_HOST=0.0.0.0 for every interface). SIGTERM or Ctrl-C drains and stops it.

    OPTIONS:
      -h, --help    Show this help.
    """

let arguments = CommandLine.arguments.dropFirst()
if arguments.contains("-h") || arguments.contains("--help") {
    print(usage)
    exit(0)
}
if let unknown = arguments.first {
    FileHandle.standardError.write(Data("starter: unknown argument '\(unknown)'\n\n\(usage)\n".utf8))
    exit(64)  // EX_USAGE
}

do {
    let application = try HubApplication.load(extensions: StarterExtensions.make())
    try await application.run()  // serves until SIGTERM/SIGINT, then drains
} catch let error as ConfigurationError {
    FileHandle.standardError.write(Data((error.description + "\n").utf8))
    exit(78)  // EX_CONFIG
}
