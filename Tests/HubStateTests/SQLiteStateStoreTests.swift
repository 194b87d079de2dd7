import Foundation
import HubEngine
import HubState
import HubTestSupport
import Testing

/// The embedded store keeps what it acknowledged in its file.
@Suite("SQLite state store")
struct SQLiteStateStoreTests {
    @Test("values and versions survive closing the store and opening the file again")
    func survivesReopen() async throws {
        let path = TemporaryFiles.path("state.sqlite3")
        let key = try freshKey()
        do {
            let store = try SQLiteStateStore(path: path)
            _ = try await store.write(key, bytes: Array(json: #"{"kept":true}"#), shape: 3, expected: 0, expiresAt: nil, now: 0)
            _ = try await store.write(key, bytes: Array(json: #"{"kept":2}"#), shape: 3, expected: 1, expiresAt: nil, now: 0)
        }
        let reopened = try SQLiteStateStore(path: path)
        #expect(try await reopened.read(key, now: 0) == StateRecord(bytes: Array(json: #"{"kept":2}"#), version: 2, shape: 3, expiresAt: nil))
    }

    @Test("a file that cannot be created is unavailable, naming it")
    func unwritablePath() throws {
        #expect(throws: StateError.self) { try SQLiteStateStore(path: "/proc/hub-no-such-dir/state.sqlite3") }
    }

    @Test("a closed store refuses calls as unavailable")
    func closed() async throws {
        let store = try SQLiteStateStore(path: TemporaryFiles.path("state.sqlite3"))
        store.close()
        await #expect(throws: StateError.self) { try await store.read(try freshKey(), now: 0) }
    }
}
