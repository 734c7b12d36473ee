import Foundation

/// A file the user names for pushsend to write (`--output`, `--junit`). A regular file, or a
/// new one, is written beside its path and renamed over it once whole, so a failed run leaves
/// what was there; anything else (a device such as `/dev/null`, a pipe, a symbolic link) is
/// written to as it is, since renaming over it would replace the device or the link.
enum OutputFile {
    /// Whether `path` names something to write through rather than replace.
    static func writesInPlace(_ path: String) -> Bool {
        // `attributesOfItem` does not follow a final symbolic link: a link is its own type.
        let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
        return type != nil && type != .typeRegular
    }

    /// Writes `data` whole to `path`; on failure, the system's reason in words.
    static func write(_ data: Data, to path: String) -> String? {
        guard writesInPlace(path) else {
            let partial = path + ".part"
            guard FileManager.default.createFile(atPath: partial, contents: data) else { return reason(errno) }
            guard rename(partial, path) == 0 else {
                let failed = reason(errno)
                try? FileManager.default.removeItem(atPath: partial)
                return failed
            }
            return nil
        }
        do {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            try? handle.truncate(atOffset: 0)  // a link to a regular file; a device has nothing to cut
            try handle.write(contentsOf: data)
            return nil
        } catch {
            return reason(error)
        }
    }

    /// The system's words for `error` ("No space left on device", "Broken pipe"), not
    /// Foundation's wrapping of them.
    static func reason(_ error: any Error) -> String {
        let wrapped = error as NSError
        let posix = wrapped.domain == NSPOSIXErrorDomain ? wrapped : wrapped.userInfo[NSUnderlyingErrorKey] as? NSError
        return posix.flatMap { Int32(exactly: $0.code) }.map(reason) ?? wrapped.localizedDescription
    }

    static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
