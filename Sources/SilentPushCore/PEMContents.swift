/// Text that is a PEM block's contents (a key or a certificate) rather than the path of its
/// file: what a user passes by mistake as `--key "$(cat key.p8)"`, or in an environment
/// variable meant for a path. It must never be echoed in a message: it may be a private key.
package enum PEMContents {
    /// Whether `text` holds a PEM block (or any line break, which no path here has).
    package static func found(in text: some StringProtocol) -> Bool {
        text.contains("-----BEGIN") || text.contains("\n")
    }

    /// The message for an argument that holds one, naming neither it nor its contents.
    package static let refusal =
        "an argument holds a key's or certificate's contents (-----BEGIN …); give the path of its file instead (the contents are not shown)"
}
