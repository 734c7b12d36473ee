import ArgumentParser
import SilentPushCore
import SilentPushDaemon
import SilentPushReceiver
import SilentPushTestSupport
import Testing

/// silentpushd's flags checked into a configuration in process, through the builder the
/// executable calls (`SilentPushd.makeConfiguration`): what each flag sets, and the one line
/// a bad one gets.
@Suite struct SilentPushdConfigurationTests {
    static let material = DevelopmentMaterial(root: Repository.root)

    static func configuration(_ arguments: [String], material: DevelopmentMaterial? = material) throws -> ReceiverConfiguration {
        try SilentPushd.parse(arguments).makeConfiguration(material: material, searched: { "searched ./certs" })
    }

    /// The refusal `arguments` get, as the executable prints it.
    static func refusal(_ arguments: [String], material: DevelopmentMaterial? = material) -> String? {
        do {
            _ = try configuration(arguments, material: material)
            return nil
        } catch {
            return SilentPushd.message(for: error)
        }
    }

    @Test func theFlagsSetTheConfiguration() throws {
        let configuration = try Self.configuration([
            "--listen", "off", "--listen-h2c", "127.0.0.1:0", "--store", "memory", "--clock", "manual", "--retain", "none",
            "--retain-pushes", "5", "--min-interval", "90s", "--environment", "production",
        ])
        #expect(configuration.listen == nil)
        #expect(configuration.listenH2C == ListenAddress(host: "127.0.0.1", port: 0))
        #expect(configuration.store == .memory)
        #expect(configuration.clock == .manual)
        #expect(configuration.retention == .init(maximumAge: nil, maximumPushes: 5))
        #expect(configuration.wakeSettings.minimumInterval == .seconds(90))
        #expect(configuration.environment == .production)
        #expect(configuration.tlsCertificate == Self.material.certificates + "/server.pem")
    }

    @Test func aBadFlagGetsOneLineThatSaysWhatToFix() {
        #expect(Self.refusal(["--retain", "0"]) == "--retain must be more than 0 (e.g. 7d), or none")
        #expect(Self.refusal(["--retain-pushes", "0"]) == "--retain-pushes must be a whole number from 1 to 1000000000, or none")
        #expect(Self.refusal(["--cluster-name", "a"]) == "--cluster-name goes with --cluster-shards: give both, or neither")
        #expect(Self.refusal(["--min-interval", "soon"]) == "--min-interval 'soon' is not a duration (e.g. 500ms, 30s, 15m, 2h, 14d)")
        #expect(
            Self.refusal([], material: nil)
                == "the development certificate was not found (searched ./certs): pass --tls-cert and --tls-key, or --listen off")
        #expect(
            Self.refusal(["--listen", "off"], material: nil)
                == "the development provider key was not found (searched ./certs): pass --auth-key KEYID:TEAMID:PATH")
    }
}
