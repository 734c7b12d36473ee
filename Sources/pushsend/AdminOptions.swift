import ArgumentParser
import Foundation
import SilentPushCore

/// Where a receiver's admin API is and its token: the options `pushsend expect` and
/// `pushsend export` share.
struct AdminOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The receiver's admin API.", valueName: "url"))
    var admin = "http://127.0.0.1:2199"

    @Option(
        name: .customLong("admin-token"), parsing: .unconditional,
        help: ArgumentHelp("Its --admin-token, if it has one. Also SILENTPUSH_ADMIN_TOKEN.", valueName: "token"))
    var adminToken: String?

    /// Refuses an --admin that is not `http(s)://HOST[:PORT][/path]` with a port from 1 to
    /// 65535, and a token an HTTP header cannot carry, before any request: a URL with no scheme
    /// or host would be reported as a receiver not running. Neither message shows a secret.
    func validate() throws {
        let shown = URLUserInfo.masked(admin)
        guard let url = URL(string: admin), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false,
            url.query == nil, url.fragment == nil
        else {
            throw ValidationError("--admin '\(shown)' is not a URL like http://127.0.0.1:2199 (the receiver's --admin address)")
        }
        if let port = PortNumber.text(inURL: admin), PortNumber.parse(port) == nil {
            throw ValidationError("--admin '\(shown)': the port must be from 1 to 65535")
        }
        if let token, token.isEmpty || !token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) {
            throw ValidationError(
                "the admin token (--admin-token or SILENTPUSH_ADMIN_TOKEN) must be printable characters with no space (a line end read from a file?); it is not shown"
            )
        }
    }

    /// The token given, or the environment's (a variable set to nothing is not given).
    var token: String? {
        adminToken ?? ProcessInfo.processInfo.environment["SILENTPUSH_ADMIN_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }
}
