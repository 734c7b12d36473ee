/// An optional per-device-token limit: at most `limit` pushes per `window` (a token
/// bucket refilled evenly), else 429 TooManyRequests. Time is a parameter (ms).
public struct TokenRateLimiter: Sendable {
    /// Pushes allowed per window.
    public let limit: Int
    /// The window in which `limit` pushes are allowed.
    public let window: Duration
    /// `window` in ms, at least 1.
    private let windowMilliseconds: Int64
    private var buckets: [String: (tokens: Double, at: Int64)] = [:]
    /// The bucket count at which the full buckets are swept out next: a full bucket is what
    /// a token never seen gets, so each token costs memory only while it is limited.
    private var sweepAt = 1024

    /// Tokens with a bucket not full: how much memory the limiter holds.
    package var trackedTokens: Int { buckets.count }

    /// A limiter of `limit` pushes per `window`.
    public init(limit: Int, window: Duration) {
        // Both come from flags or a config file: held in range rather than trapped on.
        self.limit = max(1, limit)
        self.window = window
        windowMilliseconds = max(1, window.nanosecondCount / 1_000_000)
    }

    /// Takes one push for `token` at `now` (ms), or throws TooManyRequests.
    public mutating func admit(token: String, now: Int64) throws(APNsReason) {
        let rate = Double(limit) / Double(windowMilliseconds)
        var bucket = buckets[token] ?? (Double(limit), now)
        bucket.tokens = min(Double(limit), bucket.tokens + Double(max(0, now - bucket.at)) * rate)
        bucket.at = now
        guard bucket.tokens >= 1 else {
            buckets[token] = bucket
            throw .tooManyRequests
        }
        bucket.tokens -= 1
        buckets[token] = bucket
        if buckets.count >= sweepAt { sweep(now: now, rate: rate) }
    }

    /// Drops the buckets refilled by `now`: amortized over the admits that grew the table.
    private mutating func sweep(now: Int64, rate: Double) {
        let full = Double(limit)
        buckets = buckets.filter { _, bucket in bucket.tokens + Double(max(0, now - bucket.at)) * rate < full }
        sweepAt = max(1024, buckets.count * 2)
    }
}
