import Logging
import SilentPushTesting
import Testing

/// In-process receivers keep a test's output to the test: warnings and worse, unless
/// `SILENTPUSH_LOG_LEVEL` asks for more.
@Suite struct TestingLoggerTests {
    @Test(
        arguments: [
            (nil, Logger.Level.warning), ("debug", .debug), (" TRACE ", .trace), ("info", .info), ("error", .error), ("loud", .warning),
            ("", .warning),
        ] as [(String?, Logger.Level)])
    func theLevelComesFromTheEnvironment(setting: String?, level: Logger.Level) {
        #expect(Logger.testingLogLevel(setting) == level)
    }
}
