import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// The admin API's HTTP/1.1 listener: a Hummingbird application in a service group of its
/// own, started before the receiver returns from `start` (so its port is known and the
/// ready file can name it) and stopped after the device side has drained.
final class AdminListener: Sendable {
    /// The bound port.
    let port: Int
    private let group: ServiceGroup
    private let running: Task<Void, Never>

    private init(port: Int, group: ServiceGroup, running: Task<Void, Never>) {
        self.port = port
        self.group = group
        self.running = running
    }

    /// Binds `address` and serves `api` until `stop`.
    static func start(api: AdminAPI, address: ListenAddress, group eventLoopGroup: any EventLoopGroup, logger: Logger) async throws -> AdminListener {
        let binding = Binding()
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .notice)  // Hummingbird logs every start at info
        let application = Application(
            router: api.router(),
            configuration: ApplicationConfiguration(address: .hostname(address.host, port: address.port), serverName: "silentpushd"),
            onServerRunning: { channel in binding.settle(.success(channel.localAddress?.port ?? address.port)) },
            eventLoopGroupProvider: .shared(eventLoopGroup),
            logger: quiet)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [application], logger: quiet))
        let running = Task {
            do {
                try await group.run()
                binding.settle(.failure(AdminListenerError(description: "the admin listener stopped before it was bound")))
            } catch {
                binding.settle(.failure(error))
            }
        }
        do {
            let port = try await binding.port()
            return AdminListener(port: port, group: group, running: running)
        } catch {
            await running.value
            throw error
        }
    }

    /// The outcome of binding, whichever comes first: the port, or the error.
    private final class Binding: Sendable {
        private let state = Mutex<(result: Result<Int, any Error>?, waiter: CheckedContinuation<Int, any Error>?)>((nil, nil))

        func settle(_ result: Result<Int, any Error>) {
            let waiter = state.withLock { state -> CheckedContinuation<Int, any Error>? in
                guard state.result == nil else { return nil }
                state.result = result
                return state.waiter.take()
            }
            waiter?.resume(with: result)
        }

        func port() async throws -> Int {
            try await withCheckedThrowingContinuation { continuation in
                let result = state.withLock { state -> Result<Int, any Error>? in
                    if state.result == nil { state.waiter = continuation }
                    return state.result
                }
                if let result { continuation.resume(with: result) }
            }
        }
    }

    /// Stops taking requests, lets those under way finish, and returns once closed.
    func stop() async {
        await group.triggerGracefulShutdown()
        await running.value
    }
}

/// The admin listener failed.
struct AdminListenerError: Error, CustomStringConvertible {
    let description: String
}
