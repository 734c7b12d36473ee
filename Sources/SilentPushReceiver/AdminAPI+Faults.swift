import Hummingbird
import NIOCore
import SilentPushCore

/// Fault injection in the admin API: rules that make the APNs endpoint fail on
/// purpose, so a provider's retries and backoff can be tested.
extension AdminAPI {
    func addFaultRoutes(to router: Router<BasicRequestContext>) {
        router.post("/v1/faults") { request, _ in
            try await self.addFault(body: request.body.collect(upTo: Self.maximumBodySize))
        }
        router.get("/v1/faults") { _, _ in
            Self.respond(.ok, .object([("faults", .array(self.endpoint.faultRules.map(\.json)))]))
        }
        router.delete("/v1/faults/{id}") { _, context in
            let text = try context.parameters.require("id")
            guard let id = UInt64(text), self.endpoint.removeFault(id) else { return Self.error(.notFound, "no fault rule \(text)") }
            return Self.respond(.ok, .object([("removed", .int(Int64(bitPattern: id)))]))
        }
        router.delete("/v1/faults") { _, _ in
            let count = self.endpoint.faultRules.count
            self.endpoint.removeFault(nil)
            return Self.respond(.ok, .object([("removed", .int(Int64(count)))]))
        }
    }

    /// `POST /v1/faults`: 201 with the rule (its `id`), 422 naming what is wrong.
    private func addFault(body: ByteBuffer) -> Response {
        do {
            let rule = try FaultRule(json: Self.object(body))
            guard let id = endpoint.addFault(rule), let added = endpoint.faultRules.first(where: { $0.id == id }) else {
                return Self.error(.conflict, "there are \(FaultTable.capacity) fault rules already: remove some first")
            }
            return Self.respond(.created, added.json)
        } catch let error as FaultRule.Invalid {
            return Self.error(.unprocessableContent, error.message)
        } catch let error as AdminError {
            return Self.error(error.status, error.message)
        } catch {
            return Self.error(.badRequest, "\(error)")
        }
    }
}
