#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The machine's monotonic clock (`CLOCK_MONOTONIC`), the same for every process on it: a
/// `traced` event's time and the time a benchmark wrote an operation can be subtracted.
public enum MonotonicTime {
    /// Nanoseconds since an arbitrary moment (the machine's boot).
    public static func nanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
