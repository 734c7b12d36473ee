import SilentPushReceiver

extension ReceiverConfiguration {
    /// Every listener (TLS, h2c, admin) on `127.0.0.1:0` with the repository's dev
    /// certificates, the store in memory, kept whole (no retention: a record a test reads
    /// is not pruned however far its clock moves) and a manual device clock that only the
    /// test moves; with `requireClientCertificates`, clients must present one from the dev CA.
    public static func testing(requireClientCertificates: Bool = false) -> ReceiverConfiguration {
        var configuration = ReceiverConfiguration(certificatesDirectory: DevCertificates.directory)
        configuration.listen = ListenAddress(host: "127.0.0.1", port: 0)
        configuration.listenH2C = ListenAddress(host: "127.0.0.1", port: 0)
        configuration.admin = ListenAddress(host: "127.0.0.1", port: 0)
        configuration.store = .memory
        configuration.retention = .keepEverything
        configuration.clock = .manual
        if requireClientCertificates { configuration.clientCA = DevCertificates.ca }
        configuration.shutdownGrace = .seconds(5)
        return configuration
    }
}
