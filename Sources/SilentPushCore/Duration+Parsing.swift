extension Duration {
    /// Parses durations as the command line writes them: `500ms`, `30s`, `15m`, `2h`, `14d`, `1.5s`;
    /// a bare number is seconds. Nil for anything else (a sign, an exponent, hex), or one longer
    /// than 292 years. Kept to the millisecond; a value above zero but under 1 ms is 1 ms, since
    /// zero turns some limits off.
    public init?(parsing text: String) {
        guard case .success(let duration) = Self.parsed(text) else { return nil }
        self = duration
    }

    /// Why a text is not a duration `init(parsing:)` takes.
    package enum ParsingProblem: Error, Sendable {
        /// Not a number with a unit.
        case malformed
        /// Written well, but longer than 292 years.
        case tooLong
    }

    /// What `init(parsing:)` reads, or why it reads nothing.
    package static func parsed(_ text: String) -> Result<Duration, ParsingProblem> {
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]
        var number = Substring(text)
        var scale = 1.0
        for unit in units where text.hasSuffix(unit.suffix) {
            number = text.dropLast(unit.suffix.count)
            scale = unit.seconds
            break
        }
        guard number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(number) else { return .failure(.malformed) }
        let milliseconds = value > 0 ? max(1, (value * scale * 1000).rounded()) : 0
        // Past 292 years a duration no longer fits in Int64 nanoseconds, what timers take.
        guard value.isFinite, milliseconds < Double(Int64.max / 1_000_000) else { return .failure(.tooLong) }
        return .success(.milliseconds(Int64(milliseconds)))
    }
}

extension Duration {
    /// `days` whole days.
    package static func days(_ days: Int64) -> Duration { .seconds(days * 86_400) }
}
