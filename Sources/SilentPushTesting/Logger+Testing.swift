import Foundation
import Logging

extension Logger {
    /// The logger of in-process receivers in tests: quiet (`warning`) so a test's output
    /// shows the test, unless the environment variable `SILENTPUSH_LOG_LEVEL` names another
    /// level (`trace`, `debug`, `info`, `notice`, `warning`, `error`, `critical`).
    public static var silentPushTesting: Logger {
        var logger = Logger(label: "silentpush.testing")
        logger.logLevel = testingLogLevel(ProcessInfo.processInfo.environment["SILENTPUSH_LOG_LEVEL"])
        return logger
    }

    /// `SILENTPUSH_LOG_LEVEL`'s level; `warning` when unset or not a level.
    package static func testingLogLevel(_ setting: String?) -> Logger.Level {
        setting.flatMap { Logger.Level(rawValue: $0.trimmingCharacters(in: .whitespaces).lowercased()) } ?? .warning
    }
}
