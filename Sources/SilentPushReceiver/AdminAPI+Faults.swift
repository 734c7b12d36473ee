import Hummingbird
import NIOCore
import SilentPushCore

/// Fault injection in the admin API: rules that make the APNs endpoint fail on
/// purpose, so a provider's retries and backoff can be tested.
extension AdminAPI {
    func addFaultRoutes(to router: Router<BasicRequestContext>) {
        router.post("/v1/faults") { request, _ in
            await self.addFault(body: try await request.body.collect(upTo: Self.maximumBodySize))
        }
        router.getWithHead("/v1/faults") { _, _ in
            Self.respond(.ok, .object([("faults", .array(self.endpoint.faultRules.map(\.json)))]))
        }
        router.delete("/v1/faults/{id}") { _, context in
            let text = try context.parameters.require("id")
            guard let id = UInt64(text) else { return Self.error(.notFound, "no fault rule \(text)") }
            return await self.removeFaults(id)
        }
        router.delete("/v1/faults") { _, _ in await self.removeFaults(nil) }
    }

    /// `POST /v1/faults`: 201 with the rule (its `id`), 422 naming what is wrong. In a
    /// cluster every receiver holds the rule before this answers.
    private func addFault(body: ByteBuffer) async -> Response {
        do {
            let fields = try Self.object(body)
            if let cluster { return Self.respond(.created, try await cluster.addFault(fields).json) }
            let rule = try FaultRule(json: fields)
            guard let id = endpoint.addFault(rule), let added = endpoint.faultRules.first(where: { $0.id == id }) else {
                throw ClusterCallError.faultTableFull
            }
            return Self.respond(.created, added.json)
        } catch let error as FaultRule.Invalid {
            return Self.error(.unprocessableContent, error.message)
        } catch let error as AdminError {
            return Self.error(error.status, error.message)
        } catch ClusterCallError.faultTableFull {
            return Self.error(.conflict, ClusterCallError.faultTableFull.description)
        } catch let error as ClusterCallError {
            return Self.error(.serviceUnavailable, error.description)
        } catch {
            return Self.error(.serviceUnavailable, "the cluster's fault rules cannot be changed: \(error)")
        }
    }

    /// `DELETE /v1/faults/{id}` and `DELETE /v1/faults` (`id` nil): how many went; 404 when
    /// there is no rule `id`. In a cluster, from every receiver before this answers.
    private func removeFaults(_ id: UInt64?) async -> Response {
        let removed: Int
        if let cluster {
            do {
                removed = try await cluster.removeFaults(id)
            } catch {
                return Self.error(.serviceUnavailable, "the cluster's fault rules cannot be changed: \(error)")
            }
        } else {
            removed = id.map { endpoint.removeFault($0) ? 1 : 0 } ?? endpoint.faultRules.count
            if id == nil { endpoint.removeFault(nil) }
        }
        if let id, removed == 0 { return Self.error(.notFound, "no fault rule \(id)") }
        return Self.respond(.ok, .object([("removed", .int(Int64(removed)))]))
    }
}
