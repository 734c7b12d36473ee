import ArgumentParser

/// Where a command line names its subcommand. pushsend's options belong to each subcommand,
/// so `pushsend --url … channel list` reads as `send` with a payload file named `channel`;
/// a user who put the options first meant `pushsend channel list --url …`.
package enum SubcommandOrder {
    /// `arguments` with the words that name a subcommand (and its subcommands, in turn) moved
    /// to the front, the rest kept in order; nil when no word names one, or when they are
    /// already first. Words after `--` are values, never a subcommand.
    package static func subcommandFirst(_ arguments: [String], under root: any ParsableCommand.Type) -> [String]? {
        var rest = arguments
        var path: [String] = []
        var command = root
        while true {
            let end = rest.firstIndex(of: "--") ?? rest.endIndex
            let children = command.configuration.subcommands
            guard
                let (index, child) = rest[..<end].indices.lazy.compactMap({ index in
                    children.first { name(of: $0) == rest[index] }.map { (index, $0) }
                }).first
            else { break }
            path.append(rest.remove(at: index))
            command = child
        }
        let reordered = path + rest
        return path.isEmpty || reordered == arguments ? nil : reordered
    }

    /// Whether `arguments` ask for help (`-h`, `--help`) before any `--`. Parsed as written,
    /// options first, that help would be the default subcommand's.
    package static func asksForHelp(_ arguments: [String]) -> Bool {
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        return arguments[..<end].contains { $0 == "-h" || $0 == "--help" }
    }

    /// The word that names `command`, as argument-parser itself names it (its configured
    /// name, else one derived from its type's).
    static func name(of command: any ParsableCommand.Type) -> String {
        command._commandName
    }
}
