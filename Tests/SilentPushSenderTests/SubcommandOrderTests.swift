import ArgumentParser
import SilentPushSender
import Testing

/// Options written before the subcommand they belong to: the subcommand's words are moved to
/// the front, the rest keep their order.
@Suite struct SubcommandOrderTests {
    struct Root: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tool", subcommands: [Send.self, Group.self, Plain.self], defaultSubcommand: Send.self)
    }
    struct Send: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "send")
    }
    struct Group: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "channel", subcommands: [List.self])
    }
    struct List: ParsableCommand {}
    struct Plain: ParsableCommand {}

    @Test(arguments: [
        (["--url", "u", "channel", "list"], ["channel", "list", "--url", "u"]),
        (["channel", "--url", "u", "list", "--app", "a"], ["channel", "list", "--url", "u", "--app", "a"]),
        (["--url", "u", "plain", "file.json"], ["plain", "--url", "u", "file.json"]),
        (["--url", "u", "channel", "--", "list"], ["channel", "--url", "u", "--", "list"]),
        (["--device", "d", "send"], ["send", "--device", "d"]),
    ])
    func theSubcommandsWordsGoFirst(arguments: [String], expected: [String]) {
        #expect(SubcommandOrder.subcommandFirst(arguments, under: Root.self) == expected)
    }

    @Test(arguments: [
        ["--device", "d", "payload.json"],  // no subcommand named: the default's own options
        ["channel", "list", "--url", "u"],  // already first
        ["--url", "u", "--", "channel"],  // a value after --
        [],
    ])
    func aLineWithNothingToMoveIsLeftAlone(arguments: [String]) {
        #expect(SubcommandOrder.subcommandFirst(arguments, under: Root.self) == nil)
    }

    @Test func helpIsAskedForOnlyBeforeTheValuesMark() {
        #expect(SubcommandOrder.asksForHelp(["--url", "u", "channel", "get", "--help"]))
        #expect(SubcommandOrder.asksForHelp(["-h", "channel"]))
        #expect(!SubcommandOrder.asksForHelp(["channel", "--", "--help"]))
        #expect(!SubcommandOrder.asksForHelp(["--url", "u", "channel", "list"]))
    }
}
