import SilentPushCore
import Testing

/// Where the tools look for the CA, certificates and dev key: next to an install, in the
/// checkout a binary was built in, then the working directory.
@Suite struct DevelopmentMaterialTests {
    @Test func anInstalledBinaryLooksInItsPrefixFirst() {
        let candidates = DevelopmentMaterial.candidates(executable: "/opt/sp/bin/silentpushd", workingDirectory: "/")
        #expect(Array(candidates.prefix(4)) == ["/opt/sp/share/silentpush", "/opt/sp", "/opt/share/silentpush", "/opt"])
        #expect(candidates.last == "/")
        let material = DevelopmentMaterial.locate(executable: "/opt/sp/bin/silentpushd", workingDirectory: "/") {
            $0 == "/opt/sp/share/silentpush/certs/ca.pem"
        }
        #expect(material?.certificates == "/opt/sp/share/silentpush/certs")
        #expect(material?.payloads == "/opt/sp/share/silentpush/payloads")
    }

    @Test func aBuiltBinaryFindsItsCheckout() {
        let binary = "/home/me/SilentPush/.build/x86_64-unknown-linux-gnu/release/pushsend"
        let material = DevelopmentMaterial.locate(executable: binary, workingDirectory: "/tmp") {
            $0 == "/home/me/SilentPush/certs/ca.pem" || $0 == "/tmp/certs/ca.pem"
        }
        #expect(material?.root == "/home/me/SilentPush")
    }

    @Test func theWorkingDirectoryComesLastAndNothingIsFoundWithoutTheMarker() {
        let found = DevelopmentMaterial.locate(executable: "/usr/bin/silentpushd", workingDirectory: "/work/checkout") {
            $0 == "/work/checkout/certs/ca.pem"
        }
        #expect(found?.root == "/work/checkout")
        #expect(DevelopmentMaterial.locate(executable: nil, workingDirectory: "/w") { $0 == "/w/certs/server.pem" } == nil)
        #expect(DevelopmentMaterial.candidates(executable: nil, workingDirectory: "/w") == ["/w"])
        #expect(DevelopmentMaterial.candidates(executable: "relative/bin/x", workingDirectory: "/w") == ["/w"])
    }

    @Test func theMessageSaysWhereItLooked() {
        #expect(DevelopmentMaterial.searched(executable: nil, workingDirectory: "/w") == "looked in /w/certs")
        #expect(
            DevelopmentMaterial.searched(executable: "/p/bin/x", workingDirectory: "/w")
                == "looked in /p/share/silentpush/certs, /p/certs, /share/silentpush/certs, /certs and /w/certs")
    }
}
