// epoll, eventfd and sendfile, which the Glibc module does not export (HubHTTP's event loops).
// No feature macros here (_GNU_SOURCE would change what the system headers this module shares
// with the other C modules declare, and clang refuses two definitions of one type).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>

/// Names the calling thread (15 bytes at most) for `top -H`, perf and gdb. prctl is variadic,
/// so Swift cannot call it directly.
static inline void hub_set_thread_name(const char *name) {
    prctl(PR_SET_NAME, name, 0, 0, 0);
}
