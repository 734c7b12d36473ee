// The HTTP/2 transport alone, for benchmarks: silentpushd's H2Server and event loops with a
// service that answers every request 200 and a fresh apns-id, as the foundation did before
// APNs validation. Usage: H2FixedResponseServer READY_FILE [THREADS] [tls]
import Foundation
import NIOPosix
import Synchronization
import SilentPushCore
import SilentPushTesting
import SilentPushTransport

final class FixedResponse: H2Service {
    let ids = APNsIDGenerator()
    let pushes = Atomic<UInt64>(0)
    func handle(_ request: H2Request, writer: H2ResponseWriter) {
        let id = ids.apnsID(pushID: pushes.add(1, ordering: .relaxed).newValue)
        writer.respond(H2Response(status: 200, headers: H2HeaderList(name: "apns-id", value: id)))
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: H2FixedResponseServer READY_FILE [THREADS] [tls]\n".utf8))
    exit(2)
}
let threads = arguments.count >= 3 ? Int(arguments[2]) ?? 1 : 1
let tls = arguments.count >= 4 && arguments[3] == "tls"
let context =
    tls
    ? try TLSContext.server(
        TLSServerConfiguration(
            certificateChainFile: DevCertificates.serverCertificate, privateKeyFile: DevCertificates.serverKey)) : nil
let server = try await H2Server.bind(
    listeners: [H2Listener(name: "h2", host: "127.0.0.1", port: 0, tls: context)], service: FixedResponse(),
    group: MultiThreadedEventLoopGroup(numberOfThreads: threads))
try Data("{\"port\":\(server.port("h2")!)}".utf8).write(to: URL(fileURLWithPath: arguments[1]))
try await server.run()
