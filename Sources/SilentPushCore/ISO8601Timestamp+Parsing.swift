/// Reading RFC 3339 times (the admin API's `date-time`): `2026-11-22T04:27:08Z`, with any
/// fraction of a second and a `Z` or `±HH:MM` offset.
extension ISO8601Timestamp {
    /// Milliseconds since the Unix epoch (negative before 1970) of an RFC 3339 time, or nil
    /// when `text` is not one. Digits past the millisecond are dropped; a leap second (`:60`)
    /// is read as the last millisecond of its minute.
    public static func millisecondsSinceEpoch(parsing text: some StringProtocol) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 64 else { return nil }
        var index = 0
        func number(_ width: Int) -> Int64? {
            guard index + width <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<index + width] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            index += width
            return value
        }
        func expect(_ accepted: UInt8...) -> Bool {
            guard index < bytes.count, accepted.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(0x2D), let month = number(2), expect(0x2D), let day = number(2),
            expect(0x54, 0x74), let hour = number(2), expect(0x3A), let minute = number(2), expect(0x3A), let second = number(2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour <= 23, minute <= 59, second <= 60
        else { return nil }
        var milliseconds: Int64 = 0
        if expect(0x2E) {
            var digits = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                if digits < 3 { milliseconds = milliseconds * 10 + Int64(bytes[index] - 0x30) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 3) { milliseconds *= 10 }
        }
        var offsetMinutes: Int64 = 0
        if !expect(0x5A, 0x7A) {
            guard index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D else { return nil }
            let sign: Int64 = bytes[index] == 0x2D ? -1 : 1
            index += 1
            guard let offsetHour = number(2), expect(0x3A), let offsetMinute = number(2), offsetHour <= 23, offsetMinute <= 59 else { return nil }
            offsetMinutes = sign * (offsetHour * 60 + offsetMinute)
        }
        guard index == bytes.count else { return nil }
        let leap = second == 60
        let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + (leap ? 59 : second)
        return (seconds - offsetMinutes * 60) * 1000 + (leap ? 999 : milliseconds)
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Howard Hinnant's civil-to-days algorithm, the inverse of ``civilDate(daysSinceEpoch:)``.
    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
