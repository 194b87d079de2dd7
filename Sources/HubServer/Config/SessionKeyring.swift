import Foundation
import HubEngine
import HubState

/// Where the session-signing keys come from, in order:
/// 1. `HUB_SESSION_KEYS` (comma-separated; the first signs, all verify);
/// 2. `sessions.keyFile` in `server.json` (one key per line, the signing key first; relative to
///    the config directory), for a Kubernetes Secret mounted as a file;
/// 3. a key the server generates once and keeps in its data directory
///    (`<dataDirectory>/session-keys`, mode 0600, in a directory created 0700), so a restart of the same server in the same
///    working directory accepts its old tokens. Replicas must not rely on this: each would make
///    its own key (docs/DEPLOYMENT.md).
enum SessionKeyring {
    /// The name of the generated key file inside the data directory.
    static let generatedFileName = "session-keys"

    /// Which of the three gave the keys (logged at start-up; never the keys themselves).
    enum Source: Equatable {
        case environment
        case keyFile(String)
        case generated(String)

        var description: String {
            switch self {
            case .environment: return "HUB_SESSION_KEYS"
            case .keyFile(let path): return "sessions.keyFile \(path)"
            case .generated(let path): return "generated \(path)"
            }
        }
    }

    /// The keys `settings` name, reading (or making) files as needed. Throws
    /// ``ConfigurationError`` naming the key file or data directory when neither works.
    static func resolve(_ settings: ServerSettings, configDirectory: String) throws -> (keys: SessionKeys, source: Source) {
        if !settings.sessions.keyTexts.isEmpty {
            do {
                return (try SessionKeys(texts: settings.sessions.keyTexts), .environment)
            } catch {
                throw ConfigurationError(issues: [ConfigIssue(file: "environment", path: "HUB_SESSION_KEYS", message: error.description)])
            }
        }
        if let keyFile = settings.sessions.keyFile {
            let path = keyFile.hasPrefix("/") ? keyFile : (configDirectory as NSString).appendingPathComponent(keyFile)
            func refuse(_ message: String) -> ConfigurationError {
                ConfigurationError(issues: [ConfigIssue(file: "server.json", path: "$.sessions.keyFile", message: "\(path): \(message)")])
            }
            guard let data = FileManager.default.contents(atPath: path) else { throw refuse("cannot be read") }
            do {
                return (try SessionKeys(texts: lines(data)), .keyFile(path))
            } catch {
                throw refuse(error.description)
            }
        }
        let directory = settings.dataDirectory
        let path = (directory as NSString).appendingPathComponent(generatedFileName)
        do {
            return (try loadOrCreate(path: path, directory: directory), .generated(path))
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError(issues: [
                ConfigIssue(
                    file: "server.json", path: "$.dataDirectory",
                    message: "cannot keep the generated session key in \(directory): \(error); set HUB_SESSION_KEYS or sessions.keyFile, or HUB_DATA_DIR to a writable directory")
            ])
        }
    }

    /// The key file's keys, making it first when missing. Several processes starting at once
    /// agree on one key: the file is written whole under a temporary name and linked into place
    /// (`link` fails when another process linked first; then its key is read).
    private static func loadOrCreate(path: String, directory: String) throws -> SessionKeys {
        if let data = FileManager.default.contents(atPath: path) {
            return try read(data, path: path)
        }
        try PrivateFiles.createDirectory(directory)
        let temporary = path + ".\(getpid()).\(UInt64.random(in: 0...UInt64.max))"
        let text = SessionKeys.encode(SessionKeys.randomKey()) + "\n"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        guard fchmod(descriptor, PrivateFiles.fileMode) == 0 else {
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        let written = text.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
        let synced = fsync(descriptor)
        close(descriptor)
        defer { unlink(temporary) }
        guard written == text.utf8.count, synced == 0 else { throw POSIXError(.EIO) }
        if link(temporary, path) != 0, errno != EEXIST { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        guard let data = FileManager.default.contents(atPath: path) else { throw POSIXError(.ENOENT) }
        return try read(data, path: path)
    }

    private static func read(_ data: Data, path: String) throws -> SessionKeys {
        do {
            return try SessionKeys(texts: lines(data))
        } catch {
            throw ConfigurationError(issues: [
                ConfigIssue(file: "server.json", path: "$.dataDirectory", message: "\(path): \(error.description)")
            ])
        }
    }

    /// Non-empty lines, `#` comments skipped.
    private static func lines(_ data: Data) -> [String] {
        String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
            .filter { !$0.hasPrefix("#") }
    }
}
