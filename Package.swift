// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "SilentPush",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "silentpushd", targets: ["silentpushd"]),
        .library(name: "SilentPushReceiver", targets: ["SilentPushReceiver"]),
        .library(name: "SilentPushCore", targets: ["SilentPushCore"]),
        .executable(name: "pushsend", targets: ["pushsend"]),
        .library(name: "SilentPushTesting", targets: ["SilentPushTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // C libraries, reached only through SilentPushTransport.
        .systemLibrary(
            name: "CNghttp2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"]), .brew(["nghttp2"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),

        // Pure logic: no C module, no NIO, no SQLite.
        .target(
            name: "SilentPushCore"
        ),

        // The durable record: pushes, wakes, devices in SQLite (GRDB) or PostgreSQL (postgres-nio),
        // group-committed.
        .target(
            name: "SilentPushStore",
            dependencies: [
                "SilentPushCore", "SilentPushNetworking", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log"),
                // The TLS settings of a connection to PostgreSQL (postgres-nio's own TLS).
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),

        // Why a connection was not made, in a few words: for the transport's clients and the store's PostgreSQL.
        .target(
            name: "SilentPushNetworking",
            dependencies: [.product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")]
        ),

        // HTTP/2 (nghttp2) and TLS (OpenSSL) on SwiftNIO event loops.
        .target(
            name: "SilentPushTransport",
            dependencies: [
                "SilentPushCore",
                "SilentPushNetworking",
                "CNghttp2",
                "COpenSSL",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // The embeddable receiver: what `silentpushd` runs and what tests start in-process.
        .target(
            name: "SilentPushReceiver",
            dependencies: [
                "SilentPushCore",
                "SilentPushStore",
                "SilentPushTransport",
                "SilentPushNetworking",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdCore", package: "hummingbird"),
                // The admin listener's request deadline reads the parts Hummingbird's codec makes.
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // A transfer's TLS errors: an untrusted server certificate ends it.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // The handshake's end, which an origin's probe waits for.
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),

        // The provider side: signs and posts pushes (what `pushsend` runs).
        .target(
            name: "SilentPushSender",
            dependencies: [
                "SilentPushCore",
                "SilentPushTransport",
                "SilentPushNetworking",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),

        // Helpers for tests of SilentPush and of apps tested with it.
        .target(
            name: "SilentPushTesting",
            dependencies: [
                "SilentPushReceiver",
                "SilentPushStore",
                "SilentPushCore",
                "SilentPushTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            // The development CA, certificates and provider-token key: the repository's certs/.
            resources: [.copy("Resources/certs")]
        ),

        // SilentPush's own test helpers (raw HTTP/2 frames, peer processes, built products):
        // not a product, so no app's tests see them.
        .target(
            name: "SilentPushTestSupport",
            dependencies: [
                "SilentPushCore",
                "SilentPushReceiver",
                "SilentPushStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Tests/SilentPushTestSupport"
        ),

        // jemalloc's options for silentpushd (a C global it reads before main).
        .target(name: "CJemallocOptions", path: "Sources/CJemallocOptions"),

        // silentpushd's command: its flags checked into a configuration, and the receiver run.
        .target(
            name: "SilentPushDaemon",
            dependencies: [
                "SilentPushReceiver",
                "SilentPushTransport",
                "SilentPushCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            plugins: ["BuildInfo"]
        ),
        .executableTarget(
            name: "silentpushd",
            dependencies: ["SilentPushDaemon", "CJemallocOptions"],
            // jemalloc's thread caches: records are built on the event loop and freed on the
            // store's writer, which under glibc malloc contend on the event loop's arena.
            linkerSettings: [.linkedLibrary("jemalloc", .when(platforms: [.linux]))]
        ),

        .executableTarget(
            name: "pushsend",
            dependencies: [
                "SilentPushSender",
                "SilentPushCore",
                "SilentPushTransport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            plugins: ["BuildInfo"]
        ),

        // --version: the VERSION file and the git commit, written into each tool at build.
        .plugin(name: "BuildInfo", capability: .buildTool()),

        // What `make fuzz` runs under libFuzzer and `make test` replays (Fuzz/README.md).
        .target(
            name: "SilentPushFuzzTargets",
            dependencies: [
                "SilentPushCore", "SilentPushReceiver", "SilentPushStore", "SilentPushTransport",
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Fuzz/SilentPushFuzzTargets"
        ),
        .executableTarget(
            name: "silentpush-fuzz",
            dependencies: ["SilentPushFuzzTargets"],
            path: "Fuzz/Driver"
        ),

        .testTarget(name: "SilentPushCoreTests", dependencies: ["SilentPushCore"]),
        .testTarget(
            name: "SilentPushStoreTests",
            dependencies: ["SilentPushStore", "SilentPushCore", "SilentPushTestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(
            name: "SilentPushSenderTests",
            dependencies: [
                "SilentPushTestSupport", "SilentPushSender", "SilentPushCore", "SilentPushTransport", "SilentPushReceiver", "SilentPushTesting",
                "SilentPushStore",
            ]
        ),
        .testTarget(
            name: "SilentPushReceiverTests",
            dependencies: [
                "SilentPushTestSupport", "SilentPushReceiver", "SilentPushTesting", "SilentPushStore", "SilentPushCore", "SilentPushFuzzTargets",
                "SilentPushDaemon",
            ]
        ),
        .testTarget(
            name: "SilentPushTransportTests",
            dependencies: [
                "SilentPushTestSupport",
                "SilentPushTransport",
                "SilentPushTesting",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "SilentPushLiveTests",
            dependencies: [
                "SilentPushTestSupport",
                "SilentPushReceiver",
                "SilentPushStore",
                "SilentPushCore",
                "SilentPushTransport",
                "SilentPushTesting",
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
    ]
)
