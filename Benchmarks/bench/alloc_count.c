/*
 * Counts a process's heap allocation calls for the benchmark matrix (Benchmarks/bench/matrix.sh):
 * an LD_PRELOAD shim whose malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign and
 * valloc add one to a counter and then call glibc's own allocator (__libc_*), so every block is
 * still glibc's and its free is untouched.
 *
 * The counter is the first 8 bytes of the file named by ALLOC_COUNT_FILE (at least 8 bytes
 * long, created by the script), mapped shared: a reader sees the count with a plain read of the
 * file, and forked children (nginx's workers) add to the same counter. Without the variable, or
 * when the file cannot be mapped, nothing is counted.
 *
 * Each thread counts in a thread-local variable and adds it to the shared atomic every
 * FLUSH_EVERY calls, so that the threads of a busy server do not contend on one cache line per
 * allocation: a reading misses at most FLUSH_EVERY - 1 calls per thread.
 *
 *   cc -O2 -shared -fPIC -o alloc_count.so alloc_count.c
 *   LD_PRELOAD=$PWD/alloc_count.so ALLOC_COUNT_FILE=/tmp/counter program
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define FLUSH_EVERY 32

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static _Atomic uint64_t *shared_counter;
static __thread uint32_t pending;

__attribute__((constructor)) static void alloc_count_open(void) {
    const char *path = getenv("ALLOC_COUNT_FILE");
    if (path == NULL || path[0] == '\0') return;
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return;
    void *page = mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (page != MAP_FAILED) shared_counter = page;
}

static inline void counted(void) {
    if (++pending >= FLUSH_EVERY) {
        _Atomic uint64_t *counter = shared_counter;
        if (counter != NULL) atomic_fetch_add_explicit(counter, pending, memory_order_relaxed);
        pending = 0;
    }
}

void *malloc(size_t size) {
    counted();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    counted();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    counted();
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    counted();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    counted();
    return __libc_memalign(alignment, size);
}

void *valloc(size_t size) {
    counted();
    return __libc_memalign((size_t)sysconf(_SC_PAGESIZE), size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    counted();
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}
