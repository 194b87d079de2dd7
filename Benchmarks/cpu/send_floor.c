// The kernel's floor for sending one response on loopback: a minimal HTTP/1.1 responder (one
// thread, epoll, no parsing beyond counting the requests' blank lines) that answers every request
// with the same head and a body of BODY bytes, sent one of four ways:
//
//   splice  the head with sendmsg(MSG_MORE), the body's pages tee'd from a pipe that holds them
//           into a second pipe and spliced to the socket (HubServer's path for a body file with
//           a page pipe, Sources/HubHTTP/Transport/SplicePipe.swift)
//   pipe    the head written into the second pipe ahead of the tee'd pages, one splice of both
//   copy    head and body in one sendmsg from user memory (HubServer's path below 16 KiB)
//   sendfile the head with sendmsg(MSG_MORE), the body by sendfile from a memfd that holds it
//           (nginx's path for a file in the page cache)
//
// Benchmarks/cpu/send-floor.sh runs it under wrk and reads its CPU from /proc: what the kernel
// costs per response of each size when the server's own code does next to nothing, the floor
// under HubServer's system time in `make bench-cpu` (docs/PERFORMANCE.md).
//
//   send_floor PORT MODE BODY_BYTES      listens on 127.0.0.1:PORT until killed
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

enum mode { SPLICE, PIPE, COPY, SENDFILE };

static char head[512];
static size_t head_length;
static char *body;
static size_t body_length;
static int body_file;  // a memfd holding the body (sendfile)
static int pages_read_end;  // holds the body's pages (filled once from a memfd)
static int loop_read_end, loop_write_end;  // emptied by every response
static enum mode mode;

static void die(const char *what) {
    fprintf(stderr, "send_floor: %s: %s\n", what, strerror(errno));
    exit(1);
}

// Sends one response on `fd`. Client sockets block on sends (reads are non-blocking by flag), so
// a full socket buffer waits for wrk to read rather than needing a queue: a sendmsg or splice
// returns once it has moved all it was given.
static void respond(int fd) {
    if (mode == COPY) {
        struct iovec parts[2] = {{head, head_length}, {body, body_length}};
        struct msghdr message = {.msg_iov = parts, .msg_iovlen = 2};
        if (sendmsg(fd, &message, MSG_NOSIGNAL) != (ssize_t)(head_length + body_length)) die("sendmsg");
        return;
    }
    if (mode == SENDFILE) {
        if (send(fd, head, head_length, MSG_NOSIGNAL | MSG_MORE) != (ssize_t)head_length) die("send head");
        off_t offset = 0;
        while ((size_t)offset < body_length) {
            ssize_t moved = sendfile(fd, body_file, &offset, body_length - (size_t)offset);
            if (moved < 0 && errno == EINTR) continue;
            if (moved <= 0) die("sendfile");
        }
        return;
    }
    if (mode == SPLICE) {
        if (send(fd, head, head_length, MSG_NOSIGNAL | MSG_MORE) != (ssize_t)head_length) die("send head");
    } else if (write(loop_write_end, head, head_length) != (ssize_t)head_length) {
        die("write head to pipe");
    }
    if (tee(pages_read_end, loop_write_end, body_length, SPLICE_F_NONBLOCK) != (ssize_t)body_length) die("tee");
    size_t left = body_length + (mode == PIPE ? head_length : 0);
    while (left > 0) {
        ssize_t moved = splice(loop_read_end, NULL, fd, NULL, left, 0);
        if (moved < 0 && errno == EINTR) continue;
        if (moved <= 0) die("splice");
        left -= (size_t)moved;
    }
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: send_floor PORT splice|pipe|copy|sendfile BODY_BYTES\n");
        return 2;
    }
    int port = atoi(argv[1]);
    if (strcmp(argv[2], "splice") == 0) mode = SPLICE;
    else if (strcmp(argv[2], "pipe") == 0) mode = PIPE;
    else if (strcmp(argv[2], "copy") == 0) mode = COPY;
    else if (strcmp(argv[2], "sendfile") == 0) mode = SENDFILE;
    else { fprintf(stderr, "send_floor: unknown mode %s\n", argv[2]); return 2; }
    body_length = (size_t)atol(argv[3]);
    if (body_length == 0 || body_length > (1 << 20)) { fprintf(stderr, "send_floor: BODY_BYTES 1..1048576\n"); return 2; }
    body = malloc(body_length);
    if (!body) die("malloc");
    for (size_t i = 0; i < body_length; i++) body[i] = (char)('a' + i % 26);
    // A view response's head as HubServer sends it, in size and field count.
    head_length = (size_t)snprintf(head, sizeof head,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: private, no-cache\r\n"
        "Hub-Session: v1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\r\nHub-Version: 1\r\n"
        "ETag: \"0123456789abcdef\"\r\nVary: Accept-Encoding\r\nX-Request-Id: 0123456789abcdef\r\n"
        "X-Content-Type-Options: nosniff\r\nDate: Fri, 04 Dec 2026 17:00:00 GMT\r\nContent-Length: %zu\r\n\r\n",
        body_length);

    int pages[2], loop[2];
    if (pipe2(pages, O_CLOEXEC) || pipe2(loop, O_CLOEXEC | O_NONBLOCK)) die("pipe2");
    if (fcntl(pages[1], F_SETPIPE_SZ, 1 << 20) < 0 || fcntl(loop[1], F_SETPIPE_SZ, 1 << 20) < 0) die("F_SETPIPE_SZ");
    int memory = memfd_create("send-floor-body", MFD_CLOEXEC);
    if (memory < 0 || write(memory, body, body_length) != (ssize_t)body_length) die("memfd");
    loff_t offset = 0;
    if (splice(memory, &offset, pages[1], NULL, body_length, 0) != (ssize_t)body_length) die("splice into page pipe");
    close(pages[1]);
    body_file = memory;
    pages_read_end = pages[0];
    loop_read_end = loop[0];
    loop_write_end = loop[1];

    int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    if (listener < 0 || setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one)) die("socket");
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) || listen(listener, 512)) die("bind");
    int poller = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event event = {.events = EPOLLIN, .data.fd = listener};
    if (poller < 0 || epoll_ctl(poller, EPOLL_CTL_ADD, listener, &event)) die("epoll");

    struct epoll_event events[64];
    static char buffer[16384];
    static unsigned char matched[1 << 16];
    for (;;) {
        int ready = epoll_wait(poller, events, 64, -1);
        if (ready < 0 && errno != EINTR) die("epoll_wait");
        for (int i = 0; i < ready; i++) {
            int fd = events[i].data.fd;
            if (fd == listener) {
                int client;
                while ((client = accept4(listener, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
                    if (client >= (1 << 16)) {
                        close(client);
                        continue;
                    }
                    setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    struct epoll_event readable = {.events = EPOLLIN | EPOLLET, .data.fd = client};
                    if (epoll_ctl(poller, EPOLL_CTL_ADD, client, &readable)) close(client);
                }
                continue;
            }
            for (;;) {
                ssize_t count = recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
                if (count > 0) {
                    // One response per CRLF CRLF that ends a head (wrk's requests have no body),
                    // matched across reads: `matched[fd]` is how much of it the last bytes were.
                    for (ssize_t k = 0; k < count; k++) {
                        char expected = (matched[fd] % 2 == 0) ? '\r' : '\n';
                        if (buffer[k] == expected) {
                            matched[fd] += 1;
                        } else {
                            matched[fd] = buffer[k] == '\r' ? 1 : 0;
                        }
                        if (matched[fd] == 4) {
                            matched[fd] = 0;
                            respond(fd);
                        }
                    }
                    if ((size_t)count < sizeof buffer) break;
                    continue;
                }
                if (count < 0 && errno == EINTR) continue;
                if (count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
                    matched[fd] = 0;
                    close(fd);
                }
                break;
            }
        }
    }
}
