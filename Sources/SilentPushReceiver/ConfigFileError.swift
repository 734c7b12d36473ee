import SilentPushCore

/// A config file that cannot be used; its description is one line naming the file, the key
/// and what to fix.
package enum ConfigFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file cannot be read (the system's words).
    case unreadable(path: String, problem: String)
    /// The file is larger than a config file can be.
    case tooLarge(path: String, limit: Int)
    /// The file is not JSON: reading stopped at `line` and `column` (from 1).
    case notJSON(path: String, line: Int, column: Int)
    /// An object in the file names `key` twice; `line` and `column` are just after the second
    /// one's colon.
    case duplicateKey(path: String, key: String, line: Int, column: Int)
    /// The file's JSON is not an object.
    case notAnObject(path: String)
    /// A key that is neither a flag's nor one of the other keys; `known` lists them all.
    case unknownKey(path: String, key: String, known: [String])
    /// A key's value is not what it takes; `key` is its place in the file
    /// (`fetchHandlers.com.example.app`, `devices[].topics`).
    case invalidValue(path: String, key: String, expected: String)
    /// A device without a token of 64 to 200 hex digits.
    case invalidDeviceToken(path: String)

    package var description: String {
        switch self {
        case .unreadable(let path, let problem): "cannot read the config file '\(path)': \(problem)"
        case .tooLarge(let path, let limit): "the config file '\(path)' is over \(limit) bytes (is it the right file?)"
        case .notJSON(let path, let line, let column): "\(path):\(line):\(column): the config file is not JSON here"
        case .duplicateKey(let path, let key, let line, let column): "\(path):\(line):\(column): '\(key)' is given twice; keep one"
        case .notAnObject(let path): "the config file '\(path)' must hold a JSON object"
        case .unknownKey(let path, let key, let known): "\(path): unknown key '\(key)' (keys: \(known.joined(separator: ", ")))"
        case .invalidValue(let path, let key, let expected): "\(path): \(key) must be \(expected)"
        case .invalidDeviceToken(let path): "\(path): each of devices needs a \"token\" of \(APNsRequestValidator.deviceTokenShapeText)"
        }
    }
}
