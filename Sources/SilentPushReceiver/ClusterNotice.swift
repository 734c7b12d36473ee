import Foundation
import SilentPushCore

/// What one member of a cluster tells the others through PostgreSQL's LISTEN/NOTIFY: an
/// order (move the clock, reset, take the fault rules or the channels again, fan a broadcast
/// out), or the answer to one. Members
/// are named by their writer session (its backend pid); the text is a small JSON object.
package enum ClusterNotice: Sendable, Equatable {
    /// What every member is to do before the call that sent it answers.
    package enum Order: Sendable, Equatable {
        /// Move the manual clock to this time (never back).
        case advance(to: DeviceInstant)
        /// Forget every device (`POST /v1/reset`): its state and what waits for it. Its records
        /// are the sender's to delete, which it did before it sent the order.
        case reset
        /// Read the cluster's fault rules again.
        case faults
        /// Read the broadcast channels again (one was created or deleted).
        case channels
        /// Fan broadcast `id`, which the sender recorded, out to this member's devices' activities.
        case broadcast(id: UInt64)
    }

    case order(from: Int32, call: UInt64, Order)
    /// `from` did what `to`'s call asked, or could not (`failure` says why).
    case answer(from: Int32, to: Int32, call: UInt64, failure: String?)

    /// The notice's text.
    package var payload: String {
        switch self {
        case .order(let from, let call, let order):
            var fields: [(String, JSONValue)] = [("from", .int(Int64(from))), ("call", .int(Int64(bitPattern: call)))]
            switch order {
            case .advance(let to): fields += [("order", .string("advance")), ("to", .int(to.millisecondsSinceEpoch))]
            case .reset: fields.append(("order", .string("reset")))
            case .faults: fields.append(("order", .string("faults")))
            case .channels: fields.append(("order", .string("channels")))
            case .broadcast(let id): fields += [("order", .string("broadcast")), ("id", .int(Int64(bitPattern: id)))]
            }
            return JSONValue.object(fields).rendered
        case .answer(let from, let to, let call, let failure):
            return JSONValue.object([
                ("from", .int(Int64(from))), ("to", .int(Int64(to))), ("call", .int(Int64(bitPattern: call))), ("failure", .string(failure)),
            ]).rendered
        }
    }

    /// The notice in `payload`; nil for anything else (a notice of a newer version, say).
    package init?(payload: String) {
        guard let value = try? JSONValue.parse(payload.utf8),
            case .int(let from)? = value["from"], let member = Int32(exactly: from),
            case .int(let callNumber)? = value["call"]
        else { return nil }
        let call = UInt64(bitPattern: callNumber)
        if case .int(let to)? = value["to"], value["order"] == nil {
            guard let target = Int32(exactly: to) else { return nil }
            switch value["failure"] {
            case .string(let failure)?: self = .answer(from: member, to: target, call: call, failure: failure)
            case .null?, nil: self = .answer(from: member, to: target, call: call, failure: nil)
            default: return nil
            }
            return
        }
        switch value["order"] {
        case .string("advance")?:
            guard case .int(let to)? = value["to"], (0...AdminAPI.latestInstant).contains(to) else { return nil }
            self = .order(from: member, call: call, .advance(to: DeviceInstant(millisecondsSinceEpoch: to)))
        case .string("reset")?: self = .order(from: member, call: call, .reset)
        case .string("faults")?: self = .order(from: member, call: call, .faults)
        case .string("channels")?: self = .order(from: member, call: call, .channels)
        case .string("broadcast")?:
            guard case .int(let id)? = value["id"], id > 0 else { return nil }
            self = .order(from: member, call: call, .broadcast(id: UInt64(id)))
        default: return nil
        }
    }
}
