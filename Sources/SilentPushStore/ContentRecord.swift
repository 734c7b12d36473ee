/// The latest content an `http` fetch handler got for one device, topic and URL. The body
/// is a file named by its SHA-256 beside the database.
package struct ContentRecord: Sendable, Equatable {
    package var deviceToken: String
    package var topic: String
    package var url: String
    /// The origin's validators, sent back as `If-None-Match` / `If-Modified-Since`.
    package var etag: String?
    package var lastModified: String?
    package var contentType: String?
    /// Lower-case hex SHA-256 of the body: its file's name.
    package var sha256: String
    package var size: Int
    /// Device-clock ms of the last fetch, and of the last one that changed the body.
    package var fetchedAt: Int64
    package var changedAt: Int64

    /// A record.
    package init(
        deviceToken: String, topic: String, url: String, etag: String?, lastModified: String?, contentType: String?,
        sha256: String, size: Int, fetchedAt: Int64, changedAt: Int64
    ) {
        self.deviceToken = deviceToken
        self.topic = topic
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
        self.sha256 = sha256
        self.size = size
        self.fetchedAt = fetchedAt
        self.changedAt = changedAt
    }
}
