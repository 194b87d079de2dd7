// swift-tools-version:6.1
// The Hummingbird 2 comparison app of Benchmarks/run.sh: its own package, never a dependency
// of HubServer. It builds the bench view from Swift structs and encodes it with Codable's
// JSONEncoder on every request, the way a team writing its own backend would.
import PackageDescription

let package = Package(
    name: "HummingbirdApp",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
    ],
    targets: [
        .executableTarget(
            name: "HummingbirdBench",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
