// epoll, eventfd, sendfile and memfd, which the Glibc module does not export (HubHTTP's event
// loops and sealed body files).
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Names the calling thread (15 bytes at most) for `top -H`, perf and gdb. prctl is variadic,
/// so Swift cannot call it directly.
static inline void hub_set_thread_name(const char *name) {
    prctl(PR_SET_NAME, name, 0, 0, 0);
}

/// An anonymous in-memory file that can be sealed (memfd_create with MFD_CLOEXEC and
/// MFD_ALLOW_SEALING), or -1 with errno set. Through syscall(2): older C libraries lack the wrapper.
static inline int hub_memfd_create(const char *name) {
    return (int)syscall(SYS_memfd_create, name, 0x0001U | 0x0002U);
}

/// Seals a memfd against every change (shrink, grow, write, and further seals).
static inline int hub_seal_all(int fd) {
    return fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
}
