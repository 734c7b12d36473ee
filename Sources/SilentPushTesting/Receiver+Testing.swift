import SilentPushReceiver

extension Receiver {
    /// Starts a receiver in-process (by default `ReceiverConfiguration.testing()`: both
    /// listeners on 127.0.0.1:0 with the dev certificates), runs `body` with it, and shuts it
    /// down gracefully afterwards, whether `body` returned or threw.
    public static func withTesting<Result>(
        _ configure: (inout ReceiverConfiguration) -> Void = { _ in },
        _ body: (Receiver) async throws -> Result
    ) async throws -> Result {
        var configuration = ReceiverConfiguration.testing()
        configure(&configuration)
        let receiver = try await Receiver.start(configuration)
        do {
            let result = try await body(receiver)
            await receiver.shutdownGracefully()
            return result
        } catch {
            await receiver.shutdownGracefully()
            throw error
        }
    }
}
