/// What a channel is created with: the body of `POST /1/apps/<bundleID>/channels`, and of
/// the answer to a read.
public struct ChannelConfiguration: Equatable, Sendable {
    /// Whether the channel keeps its latest message.
    public var storagePolicy: MessageStoragePolicy

    /// The one push type a channel carries, as Apple's channel pages write it.
    public static let pushType = "LiveActivity"

    /// Every spelling of the push type that Apple's pages show (`LiveActivity` on the
    /// channel pages, `Liveactivity` in the broadcast header table, `liveactivity` in the
    /// broadcast example): all are accepted.
    public static let pushTypeSpellings: Set<String> = ["LiveActivity", "Liveactivity", "liveactivity"]

    /// A configuration.
    public init(storagePolicy: MessageStoragePolicy) {
        self.storagePolicy = storagePolicy
    }

    /// Reads a create request's body, refusing it as APNs does: `PayloadEmpty` with no body,
    /// `BadRequestPayload` unless a JSON object, `BadRequestParams` for a member APNs does not
    /// know or a storage policy other than 0 or 1, `MissingPushType` without `push-type` and
    /// `InvalidPushType` for any push type but Live Activity.
    public init(parsing body: [UInt8]) throws(APNsReason) {
        guard !body.isEmpty else { throw .payloadEmpty }
        enum Problem: Error { case params, invalidPushType }
        var policy: MessageStoragePolicy?
        var pushType: String?
        do {
            try body.withUnsafeBufferPointer { buffer in
                var scanner = JSONScanner(buffer)
                guard try scanner.peek() == .object else { throw JSONScanner.Malformed(offset: 0) }
                try scanner.readObject { scanner, key in
                    switch key {
                    case "message-storage-policy":
                        guard try scanner.peek() == .number else { throw Problem.params }
                        policy = Int(try scanner.readNumberText()).flatMap(MessageStoragePolicy.init(rawValue:))
                        if policy == nil { throw Problem.params }
                    case "push-type":
                        guard try scanner.peek() == .string else { throw Problem.invalidPushType }
                        pushType = try scanner.readString()
                    default:
                        throw Problem.params
                    }
                }
                try scanner.expectEnd()
            }
        } catch let problem as Problem {
            switch problem {
            case .params: throw .badRequestParams
            case .invalidPushType: throw .invalidPushType
            }
        } catch {
            throw .badRequestPayload
        }
        guard let pushType else { throw .missingPushType }
        guard Self.pushTypeSpellings.contains(pushType) else { throw .invalidPushType }
        guard let policy else { throw .badRequestParams }
        storagePolicy = policy
    }

    /// The JSON APNs answers a read with.
    public var json: String {
        "{\"message-storage-policy\":\(storagePolicy.rawValue),\"push-type\":\"\(Self.pushType)\"}"
    }
}
