import Foundation
import SilentPushCore
import SilentPushTransport

/// What a run could not do; `pushsend` prints it, one line that says what to fix, and exits 2.
package enum PushSendError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A needed option is missing; `need` names it and what it holds.
    case missingOption(need: String)
    /// An option's value is not one it takes.
    case invalidValue(option: String, value: String, expected: String)
    /// A number outside the range an option takes.
    case outOfRange(option: String, value: Int, range: ClosedRange<Int>)
    /// A value longer than APNs takes.
    case tooLong(option: String, bytes: Int, limit: Int)
    /// Options that do not go together, or one that needs another.
    case conflictingOptions(String)
    /// The run would send more pushes than one run may: devices × `--count`.
    case tooManyPushes(devices: Int, count: Int, limit: Int)
    /// A file an option names cannot be read; `problem` says why, in the system's words.
    case unreadableFile(what: String, path: String, problem: String)
    /// A file larger than what it names can be.
    case fileTooLarge(what: String, path: String, limit: Int)
    /// `-` named standard input as the payload, and it could not be read.
    case unreadableStandardInput(problem: String)
    /// Standard input held more than `limit` bytes, far more than any payload.
    case standardInputTooLong(limit: Int)
    /// The payload would be refused by APNs, and `--no-validate` was not given.
    case invalidPayload(problem: String, fix: String)
    /// The payload would be refused, and this command has no `--no-validate` to send it anyway.
    case refusedPayload(problem: String, fix: String)
    /// The key file cannot sign provider tokens.
    case unusableKey(problem: String, source: String = "--key")
    /// TLS cannot be set up with the given CA and client certificate.
    case tlsSetup(problem: String)
    /// A provider token cannot be signed with the key.
    case signing(keyID: String, problem: String)
    /// The target does not answer.
    case connection(problem: String)
    /// The target's TLS certificate is not one pushsend trusts.
    case untrustedServer(problem: String)
    /// The development material (CA, dev key) a local push needs was not found; `searched`
    /// says where it was looked for, `fix` which flags to pass instead.
    case missingDevelopmentMaterial(what: String, searched: String, fix: String)

    package var description: String {
        switch self {
        case .missingOption(let need): "give \(need)"
        case .invalidValue(let option, let value, let expected): "\(option) \(value) is not \(expected)"
        case .outOfRange(let option, let value, let range): "\(option) must be from \(range.lowerBound) to \(range.upperBound), not \(value)"
        case .tooLong(let option, let bytes, let limit): "\(option) is \(bytes) bytes; APNs takes at most \(limit)"
        case .conflictingOptions(let rule): rule
        case .tooManyPushes(let devices, let count, let limit):
            "\(devices) devices × --count \(count) is more than \(limit) pushes in one run"
        case .unreadableFile(let what, let path, let problem): "cannot read the \(what) '\(path)': \(problem)"
        case .fileTooLarge(let what, let path, let limit): "the \(what) '\(path)' is over \(limit) bytes (is it the right file?)"
        case .unreadableStandardInput(let problem):
            "cannot read the payload from standard input (-): \(problem) (pipe the payload in, or name its file instead of -)"
        case .standardInputTooLong(let limit):
            "the payload on standard input (-) is over \(limit) bytes; APNs takes at most \(APNsPushType.background.maximumPayloadSize) (\(APNsPushType.voip.maximumPayloadSize) for VoIP and broadcasts): send a smaller one, or name a file"
        case .invalidPayload(let problem, let fix): "\(problem) (\(fix), or send it anyway with --no-validate)"
        case .refusedPayload(let problem, let fix): "\(problem) (\(fix))"
        case .unusableKey(let problem, let source): "\(problem) (check \(source))"
        case .tlsSetup(let problem): "\(problem) (check --cacert, --cert and --cert-key)"
        case .signing(let keyID, let problem): "cannot sign a provider token with key \(keyID): \(problem) (check --key)"
        case .connection(let problem): "\(problem) (check --url, --sandbox/--production and --port; is the receiver running?)"
        case .untrustedServer(let problem) where problem.contains("hostname mismatch"):
            "\(problem) (the certificate is not for the host in --url: connect by a name it was issued for, e.g. localhost for a SilentPush receiver, or --insecure to skip the check)"
        case .untrustedServer(let problem) where problem.contains("has expired") || problem.contains("not yet valid"):
            "\(problem) (the server's certificate is outside its dates: renew it, check this machine's clock, or --insecure to skip the check)"
        case .untrustedServer(let problem):
            "\(problem) (pass --cacert with the CA that signed it, e.g. certs/ca.pem for a SilentPush receiver, or --insecure to skip the check)"
        case .missingDevelopmentMaterial(let what, let searched, let fix): "the development \(what) was not found (\(searched)): pass \(fix)"
        }
    }

    /// `path`'s contents, read once (a pipe, `<(…)`, too), at most `limit` bytes; `what`
    /// names it in the error.
    static func read(_ what: String, _ path: String, limit: Int) throws(PushSendError) -> [UInt8] {
        do throws(FileBytes.Failure) {
            return try FileBytes.read(path, limit: limit)
        } catch {
            switch error {
            case .unreadable(let problem): throw .unreadableFile(what: what, path: path, problem: problem)
            case .tooLarge(let limit): throw .fileTooLarge(what: what, path: path, limit: limit)
            }
        }
    }
}
