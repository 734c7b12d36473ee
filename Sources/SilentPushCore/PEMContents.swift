/// Text that is a PEM block's contents (a key or a certificate) rather than the path of its
/// file: what a user passes by mistake as `--key "$(cat key.p8)"`, or in an environment
/// variable meant for a path. It must never be echoed in a message: it may be a private key.
package enum PEMContents {
    /// Whether `text` holds a PEM block (or any line break, which no path here has).
    package static func found(in text: some StringProtocol) -> Bool {
        text.contains(marker) || text.contains("\n")
    }

    /// Whether any of `arguments` holds a PEM block: checked before a parser, whose messages
    /// quote arguments, sees them (a line break alone is not one: a command may have it).
    package static func found(inAnyOf arguments: [String]) -> Bool {
        arguments.contains { $0.contains(marker) }
    }

    private static let marker = "-----BEGIN"

    /// The message for an argument that holds one, naming neither it nor its contents.
    package static let refusal =
        "an argument holds a key's or certificate's contents (-----BEGIN …); give the path of its file instead (the contents are not shown)"
}
