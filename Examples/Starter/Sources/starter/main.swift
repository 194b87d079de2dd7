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
    it (HUB_HOST=0.0.0.0 for every interface). SIGTERM or Ctrl-C drains and stops it. A start-up
    failure (an invalid config, a busy port, ...) exits non-zero with one line naming the cause.

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

// Loads, serves until SIGTERM/SIGINT, drains; a start-up failure exits with one line.
await HubApplication.main(extensions: StarterExtensions.make(), programName: "starter")
