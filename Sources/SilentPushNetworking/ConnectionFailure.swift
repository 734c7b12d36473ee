import Foundation
import NIOCore
import NIOPosix

/// Why a TCP connection was not made, in a few words (`connection refused`, `host example.com
/// not found`): what SwiftNIO's errors say, without their wrapping, for the lines a fetch, a
/// transfer or `pushsend` shows.
package enum ConnectionFailure {
    /// What a connect fails with: an error past it (a reset mid-answer) is not one.
    private static let connectErrors: Set<CInt> = [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, ETIMEDOUT, EADDRNOTAVAIL]

    /// The words for `error`, or nil when it is not a failure to connect.
    package static func reason(_ error: any Error) -> String? {
        switch error {
        case let error as Unreachable:
            return error.reason
        case let error as IOError:
            return connectErrors.contains(error.errnoCode) ? words(errno: error.errnoCode) : nil
        case let error as NIOConnectionError:
            if error.dnsAError != nil || error.dnsAAAAError != nil { return "host \(error.host) not found" }
            guard let last = error.connectionErrors.last else { return "host \(error.host) has no address" }
            return reason(last.error) ?? "\(last.error)"
        default:
            return nil
        }
    }

    /// The system's words for `errno`, starting lower case (`connection refused`).
    private static func words(errno: CInt) -> String {
        let text = String(cString: strerror(errno))
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}

extension ConnectionFailure {
    /// Connects to `host`:`port` over TCP and closes at once: the words for why it could not,
    /// or nil when it could (or the failure was not one of connecting, such as `timeout`
    /// passing: a host that drops the attempt). A client whose pool retries a failed connect
    /// until its timeout asks this to fail fast when nobody listens. Cancellation does not
    /// cut a connect under way: `timeout` bounds it.
    package static func probe(host: String, port: Int, on group: any EventLoopGroup, timeout: TimeAmount = .milliseconds(500)) async -> String? {
        guard (1...65_535).contains(port) else { return nil }
        do {
            let channel = try await ClientBootstrap(group: group).connectTimeout(timeout).connect(host: host, port: port).get()
            try? await channel.close()
            return nil
        } catch {
            return reason(error)
        }
    }
}
