import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// The admin API's HTTP/1.1 listener: a Hummingbird application, one of the receiver's
/// child services. It binds when it runs and reports the bound port through `onBound`.
///
/// Its connections are bounded as the APNs listeners' are, so that clients of the admin API
/// cannot take the descriptors the pushes need: at most `maximumConnections` at once (one
/// more waits in the listen queue until one closes), and a connection that sends nothing,
/// or stops partway through a request, for `idleTimeout` is closed, as is one whose request
/// has not arrived whole `idleTimeout` after it was ready for it (`AdminRequestDeadline`;
/// an answer being written, such as an event stream or an export, is neither).
enum AdminListener {
    /// The admin connections served at once (*assumed*: a few pages, scripts and probes;
    /// within the descriptors `FileDescriptorLimit.reserved` keeps).
    static let maximumConnections = 64

    /// An application serving `api` on `address`; `idleTimeout` nil: no limit.
    static func application(
        api: AdminAPI, address: ListenAddress, idleTimeout: TimeAmount?, group: any EventLoopGroup, logger: Logger,
        onBound: @escaping @Sendable (Int) async -> Void
    ) -> some ApplicationProtocol {
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .notice)  // Hummingbird logs every start at info
        return Application(
            router: api.router(),
            server: .http1(
                configuration: HTTP1Channel.Configuration(
                    additionalChannelHandlers: idleTimeout.map { [AdminRequestDeadline(limit: $0)] } ?? [], idleTimeout: idleTimeout)),
            configuration: ApplicationConfiguration(
                address: .hostname(address.host, port: address.port), serverName: "silentpushd",
                availableConnectionsDelegate: MaximumAvailableConnections(maximumConnections, logger: quiet)),
            onServerRunning: { channel in await onBound(channel.localAddress?.port ?? address.port) },
            eventLoopGroupProvider: .shared(group),
            logger: quiet)
    }
}
