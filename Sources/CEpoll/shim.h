// epoll, eventfd, sendfile and statfs, which the Glibc module does not export (HubHTTP's event
// loops and body files).
// No feature macros here (_GNU_SOURCE would change what the system headers this module shares
// with the other C modules declare, and clang refuses two definitions of one type).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/vfs.h>

/// Names the calling thread (15 bytes at most) for `top -H`, perf and gdb. prctl is variadic,
/// so Swift cannot call it directly.
static inline void hub_set_thread_name(const char *name) {
    prctl(PR_SET_NAME, name, 0, 0, 0);
}

/// The file system type of `path` (`statfs`'s `f_type`, a magic number of linux/magic.h), or -1
/// when it cannot be read.
static inline long hub_file_system_type(const char *path) {
    struct statfs status;
    if (statfs(path, &status) != 0) return -1;
    return (long)status.f_type;
}

#include <sys/syscall.h>
#include <unistd.h>

/// `tee(2)` (glibc declares it only under _GNU_SOURCE): duplicates up to `count` bytes of the
/// pipe `input` into the pipe `output` by reference; -1 and errno on failure.
static inline long hub_tee(int input, int output, unsigned long count, unsigned int flags) {
    return syscall(SYS_tee, input, output, count, flags);
}

/// `splice(2)` without offsets (glibc declares it only under _GNU_SOURCE): moves up to `count`
/// bytes from `input` to `output`, one of which is a pipe; -1 and errno on failure.
static inline long hub_splice(int input, long long *inputOffset, int output, unsigned long count, unsigned int flags) {
    return syscall(SYS_splice, input, inputOffset, output, (long long *)0, count, flags);
}

/// `pipe2(2)` (glibc declares it only under _GNU_SOURCE); -1 and errno on failure.
static inline int hub_pipe2(int ends[2], int flags) {
    return (int)syscall(SYS_pipe2, ends, flags);
}
