import Foundation

/// Files and directories only the server's user may read: the data directory (`dataDirectory`,
/// `HUB_DATA_DIR`) is created mode 0700 and every file the server makes in it 0600, whatever the
/// process's umask (the mode is set explicitly after creation).
public enum PrivateFiles {
    /// Directories are made with this mode.
    public static let directoryMode: mode_t = 0o700
    /// Files are made with this mode.
    public static let fileMode: mode_t = 0o600

    /// Creates `path` and each missing parent, each mode 0700. Directories that exist are left as
    /// they are (an operator's choice, or a mounted volume's).
    public static func createDirectory(_ path: String) throws {
        guard !path.isEmpty else { return }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw POSIXError(.ENOTDIR) }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try createDirectory(parent) }
        if mkdir(path, directoryMode) != 0 {
            guard errno == EEXIST else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            return  // made by another process meanwhile
        }
        guard chmod(path, directoryMode) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Makes sure `path` exists as a file of mode 0600 (creating it empty, and its directory,
    /// when missing), and narrows an existing one this user owns (and its `companions`: the
    /// same path with those suffixes, e.g. SQLite's `-wal` and `-shm`) to 0600.
    ///
    /// An existing file is narrowed by its path, never opened: closing a descriptor of a file
    /// releases every POSIX lock this process holds on it (`fcntl`, what SQLite locks with),
    /// whichever descriptor took them, so opening and closing a database a store of this process
    /// has open would drop that store's locks on the database and its shared memory, and another
    /// process opening it would then reset the shared memory under the store's mapping. A file
    /// made here is new (`O_EXCL`), so no one holds a lock on it.
    public static func prepareFile(_ path: String, companions: [String] = []) throws {
        try createDirectory((path as NSString).deletingLastPathComponent)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        if descriptor >= 0 {
            defer { close(descriptor) }
            try restrict(descriptor)
        } else if errno == EEXIST {
            try restrict(path: path)
        } else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        for suffix in companions { try restrict(path: path + suffix) }
    }

    /// Sets the file at `path` (when there is one, made or owned by this user) to mode 0600,
    /// without opening it.
    public static func restrict(path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        guard info.st_uid == geteuid(), info.st_mode & 0o777 != fileMode else { return }
        guard chmod(path, fileMode) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Sets an open file (made or owned by this user) to mode 0600.
    public static func restrict(_ descriptor: Int32) throws {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        guard info.st_uid == geteuid(), info.st_mode & 0o777 != fileMode else { return }
        guard fchmod(descriptor, fileMode) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}
