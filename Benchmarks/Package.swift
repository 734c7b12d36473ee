// swift-tools-version:6.1
// SilentPush's benchmarks, apart from the package users depend on, so its manifest carries
// no benchmark targets. `make bench-apns`, `make bench-policy`, `make bench-store`,
// `make bench-broadcast` and `make bench PARTS=transport` build them here in release.
//
// They print ratios against a reference measured in the same run, because the machines they
// run on are shared and noisy. package-benchmark (ordo-one) compares absolute figures with a
// stored baseline, which on such a machine moves more than the changes it should catch; that
// is why it is not used here (docs/benchmarks.md).
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its directory, whatever the checkout is called.
let root = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().standardizedFileURL
let silentPush = root.lastPathComponent

let package = Package(
    name: "SilentPushBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: root.path),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        // The request path without a socket, and ES256 verification (SPI of SilentPushReceiver).
        .executableTarget(
            name: "APNsRequestBenchmark",
            dependencies: [
                .product(name: "SilentPushCore", package: silentPush),
                .product(name: "SilentPushReceiver", package: silentPush),
                .product(name: "SilentPushTesting", package: silentPush),
            ]
        ),
        // The HTTP/2 transport alone, for `make bench PARTS=transport` (SPI of SilentPushReceiver).
        .executableTarget(
            name: "H2FixedResponseServer",
            dependencies: [
                .product(name: "SilentPushReceiver", package: silentPush),
                .product(name: "SilentPushTesting", package: silentPush),
            ]
        ),
        // The store's writer against GRDB's own inserts (SPI of SilentPushReceiver).
        .executableTarget(
            name: "StoreWriteBenchmark",
            dependencies: [
                .product(name: "SilentPushReceiver", package: silentPush),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // A broadcast to 100,000 Live Activities through the receiver, and pushes meanwhile.
        .executableTarget(
            name: "BroadcastFanOutBenchmark",
            dependencies: [
                .product(name: "SilentPushCore", package: silentPush),
                .product(name: "SilentPushReceiver", package: silentPush),
                .product(name: "SilentPushTesting", package: silentPush),
            ]
        ),
        // A million apps through the pure wake policy: only SilentPushCore's public API.
        .executableTarget(
            name: "WakePolicyBenchmark",
            dependencies: [.product(name: "SilentPushCore", package: silentPush)]
        ),
    ]
)
