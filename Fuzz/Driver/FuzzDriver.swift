import SilentPushFuzzTargets

#if canImport(Glibc)
import Glibc
#endif

#if FUZZING
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// The target libFuzzer drives, from `SILENTPUSH_FUZZ_TARGET`.
nonisolated(unsafe) var selected = FuzzTarget.json
#endif

/// `silentpush-fuzz`: under libFuzzer (`make fuzz`), `SILENTPUSH_FUZZ_TARGET=NAME
/// silentpush-fuzz [libFuzzer options] CORPUS…`; built plainly, `silentpush-fuzz NAME
/// FILE…` runs each file once (what a crash report needs to be replayed).
@main
struct FuzzDriver {
    static func main() {
        #if FUZZING
        guard let name = getenv("SILENTPUSH_FUZZ_TARGET").map({ String(cString: $0) }), let target = FuzzTarget(rawValue: name) else {
            fail("set SILENTPUSH_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        selected = target
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(
            LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                selected.run(UnsafeRawBufferPointer(start: data, count: size))
                return 0
            })
        #else
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
            fail("usage: silentpush-fuzz TARGET FILE... (targets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        for path in arguments.dropFirst() {
            guard let file = fopen(path, "rb") else { fail("cannot read '\(path)'") }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = fread(&chunk, 1, chunk.count, file)
                if count <= 0 { break }
                bytes += chunk[0..<count]
            }
            fclose(file)
            bytes.withUnsafeBytes { target.run($0) }
            print("\(path): ok")
        }
        #endif
    }

    static func fail(_ message: String) -> Never {
        let line = Array("silentpush-fuzz: \(message)\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        exit(2)
    }
}
