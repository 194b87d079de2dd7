// swift-tools-version:6.1
// A server-driven UI app on HubServer: one feature of its own (Config/features/hello.json),
// served with a Swift operation and a Swift action (Sources/Greeting). README.md: how to start
// your own from a copy.
import PackageDescription

let package = Package(
    name: "Starter",
    platforms: [.macOS(.v15)],
    dependencies: [
        // In your copy: .package(url: "https://github.com/<owner>/HubServer.git", from: "<version>")
        .package(name: "HubServer", path: "../.."),
    ],
    targets: [
        // The app's Swift code, in a library so that the tests can import it.
        .target(
            name: "Greeting",
            dependencies: [
                .product(name: "HubServer", package: "HubServer"),
                .product(name: "HubEngine", package: "HubServer"),
                .product(name: "HubModel", package: "HubServer"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "starter",
            dependencies: ["Greeting", .product(name: "HubServer", package: "HubServer")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "GreetingTests",
            dependencies: [
                "Greeting",
                .product(name: "HubServer", package: "HubServer"),
                .product(name: "HubHTTP", package: "HubServer"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
