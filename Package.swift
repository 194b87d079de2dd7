// swift-tools-version:6.1
import PackageDescription

/// Settings shared by every Swift target: Swift 6 language mode (strict concurrency)
/// plus the upcoming features that keep dependencies honest.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "HubServer",
    platforms: [.macOS(.v15)],
    // What an app that embeds HubServer depends on (docs/EMBEDDING.md, Examples/Starter):
    // HubServer (HubApplication, SwiftExtensions, the config), HubEngine (operations, actions),
    // HubModel (view models and their builders), HubHTTP (HTTPRequest and HTTPResponse, for
    // HubApplication.respond(to:) in tests). The demo's todo list (HubDemo) is an example.
    products: [
        .library(name: "HubServer", targets: ["HubServer"]),
        .library(name: "HubEngine", targets: ["HubEngine"]),
        .library(name: "HubModel", targets: ["HubModel"]),
        .library(name: "HubHTTP", targets: ["HubHTTP"]),
        .executable(name: "hub-server", targets: ["hub-server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // JWT verification against JWKS (HubIdentity): a maintained library rather than
        // hand-written JWS code. Brings swift-crypto, swift-certificates, swift-asn1, swift-log
        // and swift-extras-base64.
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        // Already in the graph through jwt-kit; named for the tests, which generate RSA keys
        // with CryptoExtras and check HubCrypto's HMAC against swift-crypto's.
        .package(url: "https://github.com/apple/swift-crypto.git", "4.1.0"..<"6.0.0"),
    ],
    targets: [
        // C system libraries with typed shims (variadic C functions cannot be called from Swift).
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // OpenSSL's libcrypto (Debian libssl-dev; libcurl links it already): HMAC-SHA256 for
        // signed session tokens.
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // SQLite (Debian libsqlite3-dev) and PostgreSQL's libpq (Debian libpq-dev): the state
        // store's backends (HubState).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        // epoll and eventfd headers for HubHTTP's event loops (Linux; nothing to link).
        .systemLibrary(name: "CEpoll"),

        // The module stack of docs/DESIGN.md; dependencies point down only. HubSync is the leaf:
        // synchronisation (Locked, the one lock ThreadSanitizer can see; Striped, a Locked per
        // thread stripe; RecentHits). HubPrimitives, above it, holds the text and number helpers
        // every module may share: ASCII comparison, OWS trimming, hex digits, FNV-1a, the buffered
        // secure random, Duration as numbers.
        .target(name: "HubSync", swiftSettings: swiftSettings),
        .target(name: "HubPrimitives", dependencies: ["HubSync"], swiftSettings: swiftSettings),
        .target(name: "HubModel", swiftSettings: swiftSettings),
        // The one home of the crypto library (OpenSSL's libcrypto): HMAC-SHA256 key schedules, SHA-256,
        // base64url and constant-time comparison, for session tokens, view tags, forwarded-header
        // fingerprints, idempotency keys and the preview's CSP. No other target imports CCrypto;
        // JWT signatures are HubIdentity's (jwt-kit, on swift-crypto).
        .target(name: "HubCrypto", dependencies: ["CCrypto"], swiftSettings: swiftSettings),
        .target(name: "HubEngine", dependencies: ["HubModel", "HubSync", "HubPrimitives", "HubCrypto"], swiftSettings: swiftSettings),
        // The state store's database backends (SQLite, PostgreSQL); the engine sees only its
        // StateStore protocol.
        .target(name: "HubState", dependencies: ["HubEngine", "HubModel", "HubSync", "HubPrimitives", "CSQLite", "CPostgres"], swiftSettings: swiftSettings),
        .target(name: "HubUpstream", dependencies: ["CCurl", "HubSync", "HubPrimitives"], swiftSettings: swiftSettings),
        // What the HTTP, upstream and server tests (and the upstream benchmark) share: the one
        // TestUpstream, the one raw loopback client, ThreadGate, RefusingPort, blocking, eventually.
        .target(name: "HubTestSupport", dependencies: ["HubHTTP", "HubUpstream", "HubSync", "HubPrimitives"], swiftSettings: swiftSettings),
        .target(name: "HubHTTP", dependencies: ["CZlib", "CEpoll", "HubSync", "HubPrimitives"], swiftSettings: swiftSettings),
        .target(name: "HubMetrics", dependencies: ["HubSync", "HubPrimitives"], swiftSettings: swiftSettings),
        // The logger: JSON (or text) lines on standard error through a writer that never blocks
        // its caller and never ends the process on a closed pipe.
        .target(name: "HubLogging", dependencies: ["HubModel", "HubSync"], swiftSettings: swiftSettings),
        // The content operations a config names (static, remote, patch), their URL templates and
        // definitions, stale content and the trace context sent upstream: no HTTP server type.
        // Reading Config/: server.json into settings, features, toggles and actions into
        // definitions, validation issues, session keys, the watcher of the config directory.
        .target(
            name: "HubConfig",
            dependencies: [
                "HubOperations", "HubEngine", "HubModel", "HubState", "HubUpstream", "HubIdentity", "HubHTTP", "HubLogging",
                "HubSync", "HubPrimitives",
            ],
            swiftSettings: swiftSettings),
        .target(
            name: "HubOperations",
            dependencies: ["HubEngine", "HubModel", "HubUpstream", "HubMetrics", "HubLogging", "HubSync", "HubPrimitives", "HubCrypto"],
            swiftSettings: swiftSettings),
        // Verifying JWTs (OpenID Connect ID tokens, OAuth access tokens) against each provider's
        // JWKS with jwt-kit; keys fetched through HubUpstream, refreshed in the background.
        .target(
            name: "HubIdentity",
            dependencies: [.product(name: "JWTKit", package: "jwt-kit"), "HubUpstream", "HubSync", "HubPrimitives"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HubServer",
            dependencies: [
                "HubModel", "HubEngine", "HubConfig", "HubOperations", "HubState", "HubUpstream", "HubIdentity", "HubHTTP", "HubMetrics", "HubLogging", "HubSync",
                "HubPrimitives", "HubCrypto",
            ],
            // Data files embedded in the binary as `PackageResources` byte arrays: the contract
            // documents Tools/contracts.py writes (the same bytes as docs/), and the preview page's
            // files, which PreviewPage assembles on first use.
            resources: [
                "openapi.json", "view-model.schema.json",
                "schema/actions.json", "schema/custom-schema.json", "schema/feature.json", "schema/server.json",
                "schema/toggles.json",
            ].map { .embedInCode("Resources/" + $0) }
                + ["preview.html", "preview.css", "preview-render.js", "preview-session.js", "preview-panel.js"].map {
                    .embedInCode("Endpoints/Preview/Page/" + $0)
                },
            swiftSettings: swiftSettings
        ),
        .target(name: "HubDemo", dependencies: ["HubServer", "HubEngine", "HubModel", "HubSync"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "hub-server",
            dependencies: [
                "HubServer",
                "HubDemo",
                "HubEngine",
                "HubModel",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        // Benchmarks: plain executables, run in release by `make bench-*`.
        .executableTarget(
            name: "HubModelBenchmarks",
            dependencies: ["HubModel", "HubSync", "HubPrimitives"],
            path: "Benchmarks/HubModelBenchmarks",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "HubHTTPBenchmarks",
            dependencies: ["HubHTTP"],
            path: "Benchmarks/HubHTTPBenchmarks",
            exclude: ["run.sh", "README.md"],
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "HubSyncBenchmarks",
            dependencies: ["HubSync", "HubPrimitives"],
            path: "Benchmarks/HubSyncBenchmarks",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "HubEngineBenchmarks",
            dependencies: ["HubEngine", "HubModel", "HubSync", "HubPrimitives"],
            path: "Benchmarks/HubEngineBenchmarks",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "HubServerBenchmarks",
            dependencies: ["HubServer", "HubEngine", "HubHTTP", "HubModel", "HubUpstream", "HubSync", "HubPrimitives"],
            path: "Benchmarks/HubServerBenchmarks",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "HubUpstreamBenchmarks",
            dependencies: ["HubUpstream", "HubTestSupport", "HubSync", "HubPrimitives"],
            path: "Benchmarks/HubUpstreamBenchmarks",
            swiftSettings: swiftSettings
        ),

        .testTarget(name: "HubModelTests", dependencies: ["HubModel"], swiftSettings: swiftSettings),
        .testTarget(name: "HubMetricsTests", dependencies: ["HubMetrics", "HubSync"], swiftSettings: swiftSettings),
        .testTarget(
            name: "HubCryptoTests", dependencies: ["HubCrypto", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings),
        .testTarget(name: "HubSyncTests", dependencies: ["HubSync"], swiftSettings: swiftSettings),
        .testTarget(name: "HubUpstreamTests", dependencies: ["HubUpstream", "HubTestSupport", "HubSync"], swiftSettings: swiftSettings),
        .testTarget(name: "HubEngineTests", dependencies: ["HubEngine", "HubModel", "HubSync", "HubPrimitives"], swiftSettings: swiftSettings),
        .testTarget(
            name: "HubStateTests", dependencies: ["HubState", "HubEngine", "HubModel", "HubSync", "HubTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "HubIdentityTests",
            dependencies: [
                "HubIdentity", "HubUpstream", "HubTestSupport", "HubSync", .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "HubHTTPTests", dependencies: ["HubHTTP", "HubSync", "HubTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "HubServerTests",
            dependencies: [
                "HubServer", "HubEngine", "HubOperations", "HubModel", "HubHTTP", "HubDemo", "HubSync", "HubTestSupport", "HubCrypto",
                .product(name: "JWTKit", package: "jwt-kit"), .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
