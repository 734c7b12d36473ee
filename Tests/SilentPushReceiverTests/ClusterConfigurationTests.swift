import SilentPushCore
import SilentPushReceiver
import SilentPushStore
import SilentPushTesting
import Testing

/// A cluster configuration given through the Swift API is checked as the flags are: the
/// receiver refuses to start, saying what to fix, before it opens anything.
@Suite struct ClusterConfigurationTests {
    @Test func aClusterWithoutPostgreSQLOrWithABadCountOrIntervalDoesNotStart() async throws {
        func refusal(_ change: (inout ReceiverConfiguration) -> Void) async -> String {
            var configuration = ReceiverConfiguration.testing()
            change(&configuration)
            do {
                _ = try await Receiver(configuration)
                return "started"
            } catch {
                return "\(error)"
            }
        }
        let url = try PostgresURL("postgres://silentpush@127.0.0.1:1/none")
        #expect(await refusal { $0.cluster = ClusterConfiguration(shards: 8) }.contains("needs a PostgreSQL store"))
        #expect(
            await refusal {
                $0.store = .postgres(url)
                $0.cluster = ClusterConfiguration(shards: 0)
            }.contains("a cluster of 0 shards"))
        #expect(
            await refusal {
                $0.store = .postgres(url)
                $0.cluster = ClusterConfiguration(shards: 8, claimInterval: .zero)
            }.contains("--cluster-claim-interval"))
    }
}
