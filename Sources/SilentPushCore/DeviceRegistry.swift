/// The device tokens the receiver knows, with the topics each may receive.
///
/// By default a token is accepted on first use, for any topic: a device is its token and
/// its apps are topics. Such a token is not kept: only tokens with a registration
/// or a standing take memory, so a million devices that merely receive pushes cost nothing
/// here. A token registered with topics takes only those
/// (DeviceTokenNotForTopic otherwise). Tokens can be unregistered (410 Unregistered) or
/// expired (410 ExpiredToken). Not thread-safe: the owner guards it.
public struct DeviceRegistry: Sendable {
    /// What happens to a token the registry has never seen.
    public enum Mode: String, Sendable {
        /// Accept it, for any topic.
        case acceptOnFirstUse
        /// Refuse it with BadDeviceToken.
        case registeredOnly
    }

    /// A token's standing.
    public enum State: Sendable, Equatable {
        /// Registered: pushes are admitted (to its topics, when it has any).
        case active
        /// Unregistered at this time (ms since the epoch).
        case unregistered(at: Int64)
        /// Expired at this time (ms since the epoch).
        case expired(at: Int64)
    }

    struct Entry: Sendable {
        /// The topics it was registered for; empty: any.
        var topics: Set<String>
        var state: State
    }

    /// How unknown tokens are treated.
    public var mode: Mode
    private var entries: [String: Entry] = [:]

    /// An empty registry.
    public init(mode: Mode = .acceptOnFirstUse) {
        self.mode = mode
    }

    /// Tokens registered, unregistered or expired (not those merely accepted on first use).
    public var count: Int { entries.count }

    /// Those tokens, with the topics each is registered for.
    public var tokens: [(token: String, topics: Set<String>)] { entries.map { ($0.key, $0.value.topics) } }

    /// Forgets `token`: it is neither registered nor unregistered any more.
    public mutating func forget(_ token: String) {
        entries[token.lowercased()] = nil
    }

    /// Forgets every token.
    public mutating func forgetAll() {
        entries = [:]
    }

    /// Registers `token` (lower-case hex) for `topics`, active.
    public mutating func register(_ token: String, topics: [String]) {
        entries[token.lowercased(), default: Entry(topics: [], state: .active)].topics.formUnion(topics)
        entries[token.lowercased()]?.state = .active
    }

    /// Marks `token` unregistered from `at` (ms since the epoch): pushes get 410 Unregistered.
    public mutating func unregister(_ token: String, at: Int64) {
        entries[token.lowercased(), default: Entry(topics: [], state: .active)].state = .unregistered(at: at)
    }

    /// Marks `token` expired from `at`: pushes get 410 ExpiredToken.
    public mutating func expire(_ token: String, at: Int64) {
        entries[token.lowercased(), default: Entry(topics: [], state: .active)].state = .expired(at: at)
    }

    /// The token's state and topics, if known.
    public func entry(_ token: String) -> (state: State, topics: Set<String>)? {
        entries[token.lowercased()].map { ($0.state, $0.topics) }
    }

    /// Admits a push to `token` (lower-case hex) on `topic`.
    public mutating func admit(token: String, topic: String) throws(APNsRejection) {
        // No registration at all (the default): no token to hash and look up.
        if entries.isEmpty, mode == .acceptOnFirstUse { return }
        guard let entry = entries[token] else {
            guard mode == .acceptOnFirstUse else { throw APNsRejection(.badDeviceToken) }
            return
        }
        switch entry.state {
        case .unregistered(let at): throw APNsRejection(.unregistered, timestamp: at)
        case .expired(let at): throw APNsRejection(.expiredToken, timestamp: at)
        case .active: break
        }
        if !entry.topics.isEmpty, !entry.topics.contains(topic) {
            throw APNsRejection(.deviceTokenNotForTopic)
        }
    }
}
