import Foundation
@testable import HubServer
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Which watch events wake a reload, and how watching is switched off.
@Suite("Config watching")
struct ConfigWatchSettingsTests {
    @Test("JSON files, directories, ..data swaps and lost events wake a reload; editors' swap and backup files do not")
    func relevantNames() {
        let write = UInt32(IN_CLOSE_WRITE)
        #expect(ConfigWatcher.matters(name: "home.json", mask: write))
        #expect(ConfigWatcher.matters(name: "..data", mask: UInt32(IN_MOVED_TO)))
        #expect(ConfigWatcher.matters(name: "features", mask: UInt32(IN_CREATE) | UInt32(IN_ISDIR)))
        #expect(ConfigWatcher.matters(name: "", mask: UInt32(IN_Q_OVERFLOW)))
        #expect(ConfigWatcher.matters(name: "", mask: UInt32(IN_DELETE_SELF)))
        #expect(!ConfigWatcher.matters(name: ".home.json.swp", mask: write))
        #expect(!ConfigWatcher.matters(name: "home.json~", mask: write))
        #expect(!ConfigWatcher.matters(name: "4913", mask: UInt32(IN_CREATE)))
        #expect(!ConfigWatcher.matters(name: "home.json", mask: UInt32(IN_IGNORED)))
    }

    @Test("HUB_CONFIG_WATCH turns watching off or on; anything else is a config error naming it")
    func environmentSwitch() throws {
        let directory = try TestConfig().write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try ConfigLoader(environment: ["HUB_CONFIG_WATCH": "0"]).load(directory: directory).settings.reload.watch == false)
        #expect(try ConfigLoader(environment: ["HUB_CONFIG_WATCH": "off"]).load(directory: directory).settings.reload.watch == false)
        #expect(try ConfigLoader(environment: [:]).load(directory: directory).settings.reload.watch == true)
        do {
            _ = try ConfigLoader(environment: ["HUB_CONFIG_WATCH": "maybe"]).load(directory: directory)
            Issue.record("HUB_CONFIG_WATCH=maybe should be refused")
        } catch {
            #expect(error.issues.contains { $0.file == "environment" && $0.path == "HUB_CONFIG_WATCH" }, "\(error)")
        }
    }
}
