import Hummingbird
import SilentPushCore
import SilentPushStore

/// `GET /v1/cluster` (this receiver's part, its peers, the store) and
/// `GET /v1/cluster/shards/{n}` (200 only at the shard's owner: a proxy's health check).
extension AdminAPI {
    func addClusterRoutes(to router: Router<BasicRequestContext>) {
        router.getWithHead("/v1/cluster") { _, _ in await self.cluster() }
        router.getWithHead("/v1/cluster/shards/{shard}") { _, context in await self.shard(try Self.parameter(context, "shard")) }
    }

    private static let notClustered = "this receiver is not one of a cluster (start it with --cluster-shards and a PostgreSQL --store)"

    private func cluster() async -> Response {
        await Self.answering {
            guard let membership = cluster else { throw AdminError(.notFound, Self.notClustered) }
            let configuration = membership.configuration
            let owned = (membership.runtime.ownedShards ?? []).sorted()
            // The store down, this receiver still says what it holds (nothing, once its session ended).
            var storeError: String?
            let members: [ClusterMemberRecord]?
            do {
                members = try await membership.store.clusterMembers()
            } catch {
                (members, storeError) = (nil, PushStore.describe(error))
            }
            return .object([
                ("name", .string(configuration.name)), ("shards", .int(Int64(configuration.shards))),
                ("claimIntervalMs", .int(configuration.claimInterval.nanosecondCount / 1_000_000)),
                ("owned", .array(owned.map { .int(Int64($0)) })),
                ("store", .string(membership.store.clusterStoreDescription)), ("storeError", .string(storeError)),
                (
                    "members",
                    members.map { members in
                        .array(
                            members.map { member in
                                .object([
                                    ("name", .string(member.name)), ("session", .int(Int64(member.session))),
                                    ("joinedAt", .string(ISO8601Timestamp.string(millisecondsSinceEpoch: member.joinedAt))),
                                    ("shards", .array(member.shards.map { .int(Int64($0)) })),
                                ])
                            })
                    } ?? .null
                ),
            ])
        }
    }

    private func shard(_ text: String) async -> Response {
        await Self.answering {
            guard let membership = cluster else { throw AdminError(.notFound, Self.notClustered) }
            let count = membership.configuration.shards
            guard text.utf8.count <= 5, let shard = Int(text), (0..<count).contains(shard) else {
                throw AdminError(.notFound, "no shard '\(text)': this cluster's shards are 0 to \(count - 1)")
            }
            guard membership.runtime.ownedShards?.contains(shard) == true else {
                throw AdminError(.serviceUnavailable, "shard \(shard) is not this receiver's: another receiver of the cluster owns it, or none yet")
            }
            return .object([("shard", .int(Int64(shard))), ("owner", .string(membership.configuration.name))])
        }
    }
}
