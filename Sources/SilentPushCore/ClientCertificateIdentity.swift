/// What an Apple provider certificate allows: its topics, from the subject UID and the
/// Apple topic extension (1.2.840.113635.100.6.3.6), and its environment.
public struct ClientCertificateIdentity: Sendable, Equatable {
    /// OID of the extension that lists topics and their push types.
    public static let topicExtensionOID = "1.2.840.113635.100.6.3.6"
    /// OID marking a development (sandbox) certificate.
    public static let developmentExtensionOID = "1.2.840.113635.100.6.3.1"
    /// OID marking a production certificate.
    public static let productionExtensionOID = "1.2.840.113635.100.6.3.2"

    /// Every topic the certificate allows; the UID first.
    public var topics: [String]
    /// Environments it is marked for; empty: not marked (accepted in both).
    public var environments: Set<APNsEnvironment>

    /// From the certificate's parts (read by the transport).
    /// - Parameters:
    ///   - subjectUID: the subject's UID: the app's bundle id.
    ///   - topicExtension: the extension's value (DER: a SEQUENCE alternating a UTF8String
    ///     topic and a SEQUENCE of its push types).
    ///   - development: whether it carries the development-environment extension.
    ///   - production: whether it carries the production-environment extension.
    public init(subjectUID: String?, topicExtension: [UInt8]?, development: Bool, production: Bool) {
        var topics: [String] = []
        if let subjectUID, !subjectUID.isEmpty { topics.append(subjectUID) }
        if let topicExtension {
            for topic in Self.topics(inExtension: topicExtension) where !topics.contains(topic) { topics.append(topic) }
        }
        self.topics = topics
        var environments: Set<APNsEnvironment> = []
        if development { environments.insert(.sandbox) }
        if production { environments.insert(.production) }
        self.environments = environments
    }

    /// The topic for a request: the one named, or the only one the certificate has.
    /// BadCertificate when it names none; BadCertificateEnvironment when it is marked for
    /// the other environment only; MissingTopic or BadTopic for the request's topic.
    public func topic(for requested: String?, environment: APNsEnvironment) throws(APNsReason) -> String {
        guard !topics.isEmpty else { throw .badCertificate }
        if !environments.isEmpty, !environments.contains(environment) { throw .badCertificateEnvironment }
        guard let requested else {
            guard topics.count == 1 else { throw .missingTopic }
            return topics[0]
        }
        guard topics.contains(requested) else { throw .badTopic }
        return requested
    }

    /// The UTF8String topics of the extension's outer SEQUENCE (type lists skipped).
    static func topics(inExtension der: [UInt8]) -> [String] {
        var reader = DERReader(der)
        guard let sequence = reader.next(), sequence.tag == 0x30 else { return [] }
        var inner = DERReader(sequence.content)
        var topics: [String] = []
        while let element = inner.next() {
            if element.tag == 0x0C || element.tag == 0x13 || element.tag == 0x16 {  // UTF8, Printable, IA5
                topics.append(String(decoding: element.content, as: UTF8.self))
            }
        }
        return topics
    }
}

/// Reads DER TLV elements one after another (definite lengths only).
struct DERReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The next element's tag and content; nil at the end or on malformed input.
    mutating func next() -> (tag: UInt8, content: [UInt8])? {
        guard position + 2 <= bytes.count else { return nil }
        let tag = bytes[position]
        var length = Int(bytes[position + 1])
        position += 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count > 0, count <= 4, position + count <= bytes.count else { return nil }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[position])
                position += 1
            }
        }
        guard length <= bytes.count - position else { return nil }
        defer { position += length }
        return (tag, Array(bytes[position..<(position + length)]))
    }
}
