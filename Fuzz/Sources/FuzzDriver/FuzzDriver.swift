import CFuzzer
import Foundation

/// The `main` of every fuzz target: hands `test` to libFuzzer's driver with the process's
/// arguments (libFuzzer's flags, corpus folders) and exits with its status.
public func runFuzzer(_ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, test))
}
