import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOPosix
import Prometheus
import ServiceLifecycle
import SilentPushCore
import SilentPushStore
import SilentPushTransport
import Synchronization

/// The receiver could not start; the message says what to fix. Each case keeps the error
/// underneath it.
public enum ReceiverStartError: Error, CustomStringConvertible {
    /// No listener is configured.
    case noListener
    /// The TLS certificate, key or client CA could not be loaded, or a CA for the origins.
    case tls(any Error)
    /// A provider key (`--auth-key SPEC`) could not be loaded.
    case authKey(spec: String, underlying: any Error)
    /// The store could not be opened, or what it holds could not be read back.
    case store(any Error)
    /// Another socket holds `address`; `flag` moves the listener.
    case addressInUse(address: String, flag: String, underlying: any Error)
    /// `address` cannot be listened on, for `reason` (no interface has it, its host is not
    /// found, a port that needs privileges); `flag` moves the listener.
    case cannotListen(address: String, flag: String, reason: String, underlying: any Error)
    /// A number in the configuration is out of its range (the flags check theirs as they
    /// are parsed; this is for settings given through the Swift API).
    case settings(any Error)
    /// The receiver could not join its cluster (another shard count, or a store that a
    /// receiver standing alone holds).
    case cluster(any Error)
    /// A listener could not be bound, or a child service failed.
    case serving(any Error)
    /// The ready file could not be written.
    case readyFile(path: String, underlying: any Error)
    /// The receiver stopped before every listener was bound.
    case stoppedBeforeReady
    /// `run()` was called again, or `ready()` after it returned: a receiver runs once.
    case alreadyRan

    /// The error underneath, if any.
    public var underlying: (any Error)? {
        switch self {
        case .tls(let error), .store(let error), .settings(let error), .cluster(let error), .serving(let error), .authKey(_, let error),
            .readyFile(_, let error),
            .addressInUse(_, _, let error), .cannotListen(_, _, _, let error):
            error
        case .noListener, .stoppedBeforeReady, .alreadyRan: nil
        }
    }

    /// One line: what failed and what to check.
    public var description: String {
        switch self {
        case .noListener: "no listener: give --listen or --listen-h2c"
        case .tls(let error as OriginTrust.CertificateFileError): "\(error)"
        case .tls(let error): "\(error) (check --tls-cert, --tls-key and --client-ca)"
        case .authKey(let spec, let error): "\(error) (check --auth-key \(spec))"
        case .store(let error): "\(error) (check --store)"
        case .addressInUse(let address, let flag, _): "address \(address) is already in use (another silentpushd? pass \(flag))"
        case .cannotListen(let address, let flag, let reason, _): "cannot listen on \(address): \(reason) (check \(flag))"
        case .settings(let error): "\(error)"
        case .cluster(let error): "\(error)"
        case .serving(let error): "\(error)"
        case .readyFile(let path, let error): "cannot write the ready file '\(path)': \(PushStore.plainReason(error)) (check --ready-file)"
        case .stoppedBeforeReady: "the receiver stopped before its listeners were bound"
        case .alreadyRan: "this receiver has run and stopped (its store is closed): make a new Receiver, on the same store to carry on"
        }
    }
}
