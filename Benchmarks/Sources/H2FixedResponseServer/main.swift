// The HTTP/2 transport alone, for benchmarks: silentpushd's H2Server and event loops with a
// service that answers every request 200 and a fresh apns-id, as the foundation did before
// APNs validation. Usage: H2FixedResponseServer READY_FILE [THREADS] [tls]
import Foundation
@_spi(Benchmarks) import SilentPushReceiver
import SilentPushTesting

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: H2FixedResponseServer READY_FILE [THREADS] [tls]\n".utf8))
    exit(2)
}
let threads = arguments.count >= 3 ? Int(arguments[2]) ?? 1 : 1
let tls = arguments.count >= 4 && arguments[3] == "tls"
try await FixedResponseServer.run(
    threads: threads, tls: tls ? (DevCertificates.serverCertificate, DevCertificates.serverKey) : nil
) { port in
    try Data("{\"port\":\(port)}".utf8).write(to: URL(fileURLWithPath: arguments[1]))
}
