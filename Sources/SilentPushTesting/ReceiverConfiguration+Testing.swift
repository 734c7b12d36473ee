import SilentPushReceiver

extension ReceiverConfiguration {
    /// Both listeners on `127.0.0.1:0` with the repository's dev certificates; with
    /// `requireClientCertificates`, clients must present one from the dev CA.
    public static func testing(requireClientCertificates: Bool = false) -> ReceiverConfiguration {
        var configuration = ReceiverConfiguration(certificatesDirectory: DevCertificates.directory)
        configuration.listen = ListenAddress(host: "127.0.0.1", port: 0)
        configuration.listenH2C = ListenAddress(host: "127.0.0.1", port: 0)
        if requireClientCertificates { configuration.clientCA = DevCertificates.ca }
        configuration.shutdownGrace = .seconds(5)
        return configuration
    }
}
