import Logging
import ServiceLifecycle
import SilentPushReceiver

extension Receiver {
    /// Runs a receiver in-process (by default `ReceiverConfiguration.testing()`: its TLS, h2c
    /// and admin listeners on 127.0.0.1:0 with the dev certificates), calls `body` with it once
    /// every listener is bound, and shuts it down gracefully afterwards, whether `body`
    /// returned or threw. It logs through `logger`: by default `Logger.silentPushTesting`, at
    /// `warning` unless `SILENTPUSH_LOG_LEVEL` asks for more.
    public static func withTesting<Result>(
        _ configure: (inout ReceiverConfiguration) throws -> Void = { _ in },
        logger: Logger = .silentPushTesting,
        _ body: (Receiver) async throws -> Result
    ) async throws -> Result {
        var configuration = ReceiverConfiguration.testing()
        try configure(&configuration)
        let receiver = try await Receiver(configuration, logger: logger)
        return try await receiver.whileRunning(logger: logger, body)
    }

    /// Runs this receiver in a service group of its own (logging through `logger`), calls
    /// `body` once every listener is bound, then shuts it down gracefully and waits until it
    /// has stopped.
    public func whileRunning<Result>(logger: Logger = .silentPushTesting, _ body: (Receiver) async throws -> Result) async throws -> Result {
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [self], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let outcome: Swift.Result<Result, any Error>
            do {
                try await ready()
                outcome = .success(try await body(self))
            } catch {
                outcome = .failure(error)
            }
            await group.triggerGracefulShutdown()
            // A receiver that failed to start has already said why through `ready()`.
            do {
                try await tasks.waitForAll()
            } catch {
                if case .success = outcome { throw error }
            }
            return try outcome.get()
        }
    }
}
