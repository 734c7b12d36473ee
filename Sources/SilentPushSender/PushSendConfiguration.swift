import SilentPushCore
import SilentPushTransport

/// Everything one `pushsend` run needs, resolved from its flags (tests build it directly).
package struct PushSendConfiguration: Sendable {
    /// How long the server may send nothing while the TLS handshake or a push waits on it:
    /// then the connection is closed and its pushes fail, instead of waiting for ever on a
    /// peer that accepts and never speaks. Past the longest delay a fault rule can give an
    /// answer (60 s), so a slowed answer still comes.
    package static let answerTimeout: Duration = FaultAction.maximumDelay + .seconds(30)
    /// This run's answer timeout (`answerTimeout`; tests shorten it). A push on a connection
    /// the server's silence ended is not sent again, so it holds a push no longer than this.
    package var answerTimeout: Duration = Self.answerTimeout

    /// How the provider proves who it is.
    package enum Authentication: Sendable {
        /// A provider token signed with this signer.
        case token(ProviderTokenSigner)
        /// A client certificate, in `tls`.
        case certificate
    }

    /// How results are printed on stdout.
    package enum Output: Sendable, Equatable {
        /// `200 <apns-id>` / `<status> <reason> <apns-id>`, one line per push.
        case lines
        /// One JSON object per push.
        case json
        /// No line per push: the summary alone.
        case quiet
    }

    package var target: APNsTarget
    /// TLS for `https` targets (CA, `--insecure`, client certificate).
    package var tls: TLSClientConfiguration
    package var authentication: Authentication
    package var devices: [String]
    package var payload: [UInt8]
    /// The request for each device (its `deviceToken` is replaced per device).
    package var request: APNsPushRequest
    /// Pushes per device.
    package var count: Int
    /// Streams in flight per connection.
    package var concurrency: Int
    package var connections: Int
    package var output: Output
    /// Print each request's and response's headers on stderr.
    package var verbose: Bool
    /// Show a progress line on stderr (when it is a terminal).
    package var progress: Bool

    /// A configuration.
    package init(
        target: APNsTarget, tls: TLSClientConfiguration = TLSClientConfiguration(), authentication: Authentication,
        devices: [String], payload: [UInt8], request: APNsPushRequest, count: Int = 1, concurrency: Int = 1,
        connections: Int = 1, output: Output = .lines, verbose: Bool = false, progress: Bool = false
    ) {
        self.target = target
        self.tls = tls
        self.authentication = authentication
        self.devices = devices
        self.payload = payload
        self.request = request
        self.count = count
        self.concurrency = concurrency
        self.connections = connections
        self.output = output
        self.verbose = verbose
        self.progress = progress
    }
}
