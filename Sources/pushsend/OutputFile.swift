import Foundation

/// A file the user names for pushsend to write (`--output`, `--junit`). A regular file, or a
/// new one, is written beside itself and renamed over once whole, so a failed run leaves what
/// was there; through a symbolic link, that is the file it names (the link stays). Anything
/// else (a device such as `/dev/null`, a pipe) is written to as it is, since renaming over it
/// would replace the device.
enum OutputFile {
    /// How writing a path goes.
    enum Plan: Equatable {
        /// Write `target` + `.part`, then rename it over `target`.
        case replace(target: String)
        /// Open the path itself (creating it, cutting what it held) and write to it.
        case inPlace
    }

    /// How writing `path` goes.
    static func plan(_ path: String) -> Plan {
        // `attributesOfItem` does not follow a final symbolic link: a link is its own type.
        let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
        switch type {
        case nil, .typeRegular?: return .replace(target: path)
        case .typeSymbolicLink?:
            let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            let resolved = (try? FileManager.default.attributesOfItem(atPath: target))?[.type] as? FileAttributeType
            return resolved == .typeRegular ? .replace(target: target) : .inPlace
        default: return .inPlace
        }
    }

    /// Opens `path` to write in place: created when missing, emptied when a regular file.
    static func openInPlace(_ path: String) throws(Failure) -> FileHandle {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Failure(reason: reason(errno)) }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Writes `data` whole to `path` (see `plan`); on failure, the system's reason in words.
    static func write(_ data: Data, to path: String) -> String? {
        switch plan(path) {
        case .replace(let target):
            let partial = target + ".part"
            do {
                try data.write(to: URL(fileURLWithPath: partial))
            } catch {
                return reason(error)
            }
            guard rename(partial, target) == 0 else {
                let failed = reason(errno)
                try? FileManager.default.removeItem(atPath: partial)
                return failed
            }
            return nil
        case .inPlace:
            do {
                let handle = try openInPlace(path)
                defer { try? handle.close() }
                try handle.write(contentsOf: data)
                return nil
            } catch {
                return reason(error)
            }
        }
    }

    /// A file could not be opened: the system's words.
    struct Failure: Error {
        var reason: String
    }

    /// The system's words for `error` ("No space left on device", "Broken pipe"), not
    /// Foundation's wrapping of them.
    static func reason(_ error: any Error) -> String {
        if let failure = error as? Failure { return failure.reason }
        let wrapped = error as NSError
        let posix = wrapped.domain == NSPOSIXErrorDomain ? wrapped : wrapped.userInfo[NSUnderlyingErrorKey] as? NSError
        return posix.flatMap { Int32(exactly: $0.code) }.map(reason) ?? wrapped.localizedDescription
    }

    static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
