import CNghttp2
import SilentPushCore

/// Receives what a server session assembles. Called synchronously from inside
/// `H2ServerSession.receive(_:)`; answering from inside the call is allowed.
package protocol H2ServerSessionDelegate: AnyObject {
    /// A complete request arrived.
    func session(_ session: H2ServerSession, didReceive request: H2Request)
    /// A request was cut short by a limit; answer it as the application sees fit.
    func session(_ session: H2ServerSession, didRefuse request: H2Request, problem: H2RequestProblem)
}
