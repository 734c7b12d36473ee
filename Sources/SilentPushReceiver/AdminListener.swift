import Hummingbird
import Logging
import NIOCore

/// The admin API's HTTP/1.1 listener: a Hummingbird application, one of the receiver's
/// child services. It binds when it runs and reports the bound port through `onBound`.
enum AdminListener {
    /// An application serving `api` on `address`.
    static func application(
        api: AdminAPI, address: ListenAddress, group: any EventLoopGroup, logger: Logger,
        onBound: @escaping @Sendable (Int) async -> Void
    ) -> some ApplicationProtocol {
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .notice)  // Hummingbird logs every start at info
        return Application(
            router: api.router(),
            configuration: ApplicationConfiguration(address: .hostname(address.host, port: address.port), serverName: "silentpushd"),
            onServerRunning: { channel in await onBound(channel.localAddress?.port ?? address.port) },
            eventLoopGroupProvider: .shared(group),
            logger: quiet)
    }
}
