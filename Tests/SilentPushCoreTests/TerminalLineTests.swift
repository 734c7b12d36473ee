import SilentPushCore
import Testing

@Suite struct TerminalLineTests {
    @Test func controlCharactersAreShownAndTheRestIsKept() {
        #expect(TerminalLine.escaped("--profile 'fa\u{1b}[31mst' is not ios") == "--profile 'fa\\u{1b}[31mst' is not ios")
        #expect(TerminalLine.escaped("a\nb\tc\u{7f}\u{85}") == "a\\u{a}b\\u{9}c\\u{7f}\\u{85}")
        #expect(TerminalLine.escaped("/tmp/café/ünïcode — “quoted”") == "/tmp/café/ünïcode — “quoted”")
    }
}
