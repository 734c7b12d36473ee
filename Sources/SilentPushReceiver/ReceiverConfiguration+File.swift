import Foundation
import SilentPushCore

extension ReceiverConfiguration {
    /// Reads a config file (`--config FILE`, JSON) into this configuration. Flags given on
    /// the command line are applied after it, so they win. Keys read so far:
    ///
    /// ```json
    /// {"fetchHandlers": {"com.example.news": {"url": "http://127.0.0.1:8080/news/{token}"},
    ///                    "com.example.mail": {"exec": "./fetch-mail.sh"},
    ///                    "com.example.quiet": {"noData": true}},
    ///  "fetchBodyLimit": 10485760}
    /// ```
    ///
    /// Throws a one-line message naming the file and what to fix.
    public mutating func apply(configFile path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigFileError("cannot read the config file '\(path)'")
        }
        let root: JSONValue
        do {
            root = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw ConfigFileError("the config file '\(path)' is not JSON")
        }
        guard case .object(let fields) = root else { throw ConfigFileError("the config file '\(path)' must hold a JSON object") }
        for (key, value) in fields {
            switch key {
            case "fetchHandlers":
                guard case .object(let topics) = value else {
                    throw ConfigFileError("\(path): fetchHandlers must map topics to handlers")
                }
                for (topic, handler) in topics {
                    topicFetchHandlers[topic] = try Self.fetchHandler(handler, at: "\(path): fetchHandlers.\(topic)")
                }
            case "fetchBodyLimit":
                guard case .int(let limit) = value, limit > 0 else {
                    throw ConfigFileError("\(path): fetchBodyLimit must be a positive number of bytes")
                }
                fetchBodyLimit = Int(limit)
            default:
                throw ConfigFileError("\(path): unknown key '\(key)' (keys: fetchHandlers, fetchBodyLimit)")
            }
        }
    }

    static func fetchHandler(_ value: JSONValue, at place: String) throws -> FetchHandlerChoice {
        guard case .object(let fields) = value, fields.count == 1, let (kind, argument) = fields.first else {
            throw ConfigFileError("\(place) must be one of {\"exec\": COMMAND}, {\"url\": TEMPLATE}, {\"noData\": true}")
        }
        switch (kind, argument) {
        case ("exec", .string(let command)) where !command.trimmingCharacters(in: .whitespaces).isEmpty:
            return .exec(command)
        case ("url", .string(let template)):
            do {
                return .url(try FetchURLTemplate(template))
            } catch {
                throw ConfigFileError("\(place): \(error)")
            }
        case ("noData", .bool(true)):
            return .noData
        default:
            throw ConfigFileError("\(place) must be one of {\"exec\": COMMAND}, {\"url\": TEMPLATE}, {\"noData\": true}")
        }
    }
}

/// A config file that cannot be used; the message names the file and what to fix.
public struct ConfigFileError: Error, CustomStringConvertible, Sendable {
    /// One line.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
