// swift-tools-version:6.1
// An app team's package that tests its silent-push path with SilentPush, depending on it by
// version as any package would. `make test` publishes this checkout as a tagged git
// repository under .build-consumer/ (scripts/test-consumer-package.sh); in your own package
// the URL is SilentPush's repository.
import PackageDescription

let silentPush = "file://\(Context.packageDirectory)/../../.build-consumer/SilentPush"

let package = Package(
    name: "ConsumerPackage",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: silentPush, from: "0.1.0")
    ],
    targets: [
        .testTarget(
            name: "ConsumerTests",
            dependencies: [
                .product(name: "SilentPushReceiver", package: "SilentPush"),
                .product(name: "SilentPushTesting", package: "SilentPush"),
            ]
        )
    ]
)
