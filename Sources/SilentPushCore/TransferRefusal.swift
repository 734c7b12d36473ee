/// Why a transfer was refused: the wake's record says it in these words.
public enum TransferRefusal: String, Error, Sendable, CaseIterable {
    case notAnObject = "a transfer is a JSON object"
    case repeatedField = "a transfer names each field at most once"
    case unknownField =
        "a transfer's fields are session, url, method, fromFile, discretionary, allowsCellular and sessionSendsLaunchEvents (URLSession's others are not modelled)"
    case missingSession = "a transfer needs a session"
    case badSession = "session must be 1 to 200 bytes (UTF-8) of printable characters"
    case missingURL = "a transfer needs a url"
    case notHTTP = "url must be an http or https URL (at most 2048 bytes, spaces and control characters percent-encoded)"
    case unknownMethod = "method must be GET, PUT or POST"
    case badFlag = "discretionary, allowsCellular and sessionSendsLaunchEvents must be true or false"
    case tooMany = "too many transfers for the app: its transfers not yet done are at the cap (--transfer-limit, 100 by default)"
    case launchEventsDiffer =
        "sessionSendsLaunchEvents is the session's: give the value its other transfers have (GET /v1/transfers?session= shows it)"
    case notRunning = "the handler has ended: hand transfers over while it runs"
    case uploadWithGET = "fromFile goes with PUT or POST: a GET downloads"
    case badFile = "fromFile must be an absolute path to a file the receiver can read (at most 1024 bytes)"
    case transfersNotAnArray = "an http handler's transfers must be a JSON array of transfer objects"
    case fileFromOrigin = "an http handler's transfers cannot name fromFile: the receiver would send its own files where an origin says"
}
