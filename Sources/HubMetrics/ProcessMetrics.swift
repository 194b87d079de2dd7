#if canImport(Glibc)
import Glibc
#endif

/// The process metrics every Prometheus client library exports (the "process" collector of
/// client_golang and client_python), read from `/proc/self` at scrape time:
/// `process_cpu_seconds_total`, `process_resident_memory_bytes`, `process_virtual_memory_bytes`,
/// `process_open_fds`, `process_max_fds` and `process_start_time_seconds`.
///
/// On a system without `/proc` the families are still described (HELP/TYPE) with no samples.
public enum ProcessMetrics {
    /// Registers the six families on `registry`.
    public static func register(on registry: MetricsRegistry) {
        registry.collectedCounter("process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds.") {
            sample(readStat().map { Double($0.userTicks + $0.systemTicks) / ticksPerSecond })
        }
        registry.collectedGauge("process_resident_memory_bytes", help: "Resident memory size in bytes.") {
            sample(readStat().map { Double($0.residentPages) * Double(sysconf(Int32(_SC_PAGESIZE))) })
        }
        registry.collectedGauge("process_virtual_memory_bytes", help: "Virtual memory size in bytes.") {
            sample(readStat().map { Double($0.virtualBytes) })
        }
        registry.collectedGauge("process_open_fds", help: "Number of open file descriptors.") {
            sample(openDescriptors().map(Double.init))
        }
        registry.collectedGauge("process_max_fds", help: "Maximum number of open file descriptors.") {
            var limit = rlimit()
            guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return [] }
            return sample(limit.rlim_cur == rlim_t.max ? Double.infinity : Double(limit.rlim_cur))
        }
        registry.collectedGauge("process_start_time_seconds", help: "Start time of the process since unix epoch in seconds.") {
            guard let stat = readStat(), let boot = bootTime() else { return [] }
            return sample(boot + Double(stat.startTicks) / ticksPerSecond)
        }
    }

    private static func sample(_ value: Double?) -> [(labels: [(String, String)], value: Double)] {
        value.map { [(labels: [], value: $0)] } ?? []
    }

    private static var ticksPerSecond: Double { Double(sysconf(Int32(_SC_CLK_TCK))) }

    /// The fields of `/proc/self/stat` (proc(5)) the metrics use.
    struct Stat {
        var userTicks: UInt64
        var systemTicks: UInt64
        var startTicks: UInt64
        var virtualBytes: UInt64
        var residentPages: UInt64
    }

    /// Parses `/proc/self/stat`. The command name (field 2) may hold spaces and parentheses, so
    /// fields are counted from the last `)`.
    static func readStat() -> Stat? {
        guard let text = readFile("/proc/self/stat"), let close = text.lastIndex(of: ")") else { return nil }
        // After ")": field 3 (state) is index 0, so field N is index N - 3.
        let fields = text[text.index(after: close)...].split(separator: " ")
        func field(_ number: Int) -> UInt64? {
            let index = number - 3
            return fields.indices.contains(index) ? UInt64(fields[index]) : nil
        }
        guard let user = field(14), let system = field(15), let start = field(22), let virtual = field(23),
            let resident = field(24)
        else { return nil }
        return Stat(userTicks: user, systemTicks: system, startTicks: start, virtualBytes: virtual, residentPages: resident)
    }

    /// `btime` of `/proc/stat`: the boot time in seconds since the epoch.
    static func bootTime() -> Double? {
        guard let text = readFile("/proc/stat") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst(6).trimmingPrefix(" "))
        }
        return nil
    }

    /// The entries of `/proc/self/fd` (the directory's own descriptor included, as client_golang counts).
    static func openDescriptors() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        // The name is read in place, up to its NUL: a `dirent` from readdir is only as long as its
        // name, so copying the whole `d_name` field (256 bytes) can run past the mapped buffer.
        guard let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { return nil }
        var count = 0
        while let entry = readdir(directory) {
            let name = UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: UInt8.self)
            let isDot = name[0] == UInt8(ascii: ".") && (name[1] == 0 || (name[1] == UInt8(ascii: ".") && name[2] == 0))
            if !isDot { count += 1 }
        }
        return count
    }

    /// A small procfs file as text (procfs reports size 0, so it is read until end of file).
    static func readFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { _ = close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
