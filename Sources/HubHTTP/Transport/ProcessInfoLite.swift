#if canImport(Glibc)
import Glibc
#endif

/// Processor count without Foundation.
enum ProcessInfoLite {
    static var activeProcessorCount: Int {
        let count = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return count > 0 ? count : 1
    }
}
