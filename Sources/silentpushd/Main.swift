import SilentPushDaemon

/// `silentpushd`: the receiver. Its flags are parsed into a configuration, and the receiver
/// run on it, by `SilentPushd` (in `SilentPushDaemon`, where tests reach them).
@main
enum Main {
    static func main() async {
        await SilentPushd.main()
    }
}
