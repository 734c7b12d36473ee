/// The request headers APNs reads, each at most once.
public struct APNsHeaders: Sendable, Equatable {
    /// `apns-id` as sent; nil when absent.
    public var apnsID: String?
    /// `apns-topic` as sent; nil when absent.
    public var topic: String?
    /// `apns-push-type` as sent; nil when absent.
    public var pushType: String?
    /// `apns-priority` as sent; nil when absent.
    public var priority: String?
    /// `apns-expiration` as sent; nil when absent.
    public var expiration: String?
    /// `apns-collapse-id` as sent; nil when absent.
    public var collapseID: String?
    /// `authorization` as sent (`bearer` and a provider token); nil when absent.
    public var authorization: String?

    /// No headers.
    public init(
        apnsID: String? = nil, topic: String? = nil, pushType: String? = nil, priority: String? = nil,
        expiration: String? = nil, collapseID: String? = nil, authorization: String? = nil
    ) {
        self.apnsID = apnsID
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.authorization = authorization
    }

    private enum Field: Int {
        case apnsID, topic, pushType, priority, expiration, collapseID, authorization
    }

    /// Reads the APNs headers in one pass; DuplicateHeaders when one of them comes twice.
    /// Other fields are ignored.
    public static func read(from source: some APNsHeaderSource) throws(APNsReason) -> APNsHeaders {
        var headers = APNsHeaders()
        var seen: UInt8 = 0
        var duplicate = false
        source.forEachHeader { name, value in
            guard let field = Self.field(named: name) else { return }
            let bit = UInt8(1) << field.rawValue
            if seen & bit != 0 {
                duplicate = true
                return
            }
            seen |= bit
            let text = String(decoding: value, as: UTF8.self)
            switch field {
            case .apnsID: headers.apnsID = text
            case .topic: headers.topic = text
            case .pushType: headers.pushType = text
            case .priority: headers.priority = text
            case .expiration: headers.expiration = text
            case .collapseID: headers.collapseID = text
            case .authorization: headers.authorization = text
            }
        }
        if duplicate { throw .duplicateHeaders }
        return headers
    }

    private static func field(named name: UnsafeRawBufferPointer) -> Field? {
        func equals(_ literal: StaticString) -> Bool {
            guard name.count == literal.utf8CodeUnitCount else { return false }
            for index in 0..<name.count where name[index] != literal.utf8Start[index] { return false }
            return true
        }
        switch name.count {
        case 7: return equals("apns-id") ? .apnsID : nil
        case 10: return equals("apns-topic") ? .topic : nil
        case 13: return equals("apns-priority") ? .priority : equals("authorization") ? .authorization : nil
        case 14: return equals("apns-push-type") ? .pushType : nil
        case 15: return equals("apns-expiration") ? .expiration : nil
        case 16: return equals("apns-collapse-id") ? .collapseID : nil
        default: return nil
        }
    }

    /// Whether `text` is a UUID in the canonical 8-4-4-4-12 form (either case), as `apns-id` must be.
    public static func isCanonicalUUID(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.count == 36 else { return false }
        for (index, byte) in utf8.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard Self.isHexDigit(byte) else { return false }
            }
        }
        return true
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }
}
