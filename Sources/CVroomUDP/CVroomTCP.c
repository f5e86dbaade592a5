#define _GNU_SOURCE
#include "CVroomTCP.h"
#include "vroom_address.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

int vroom_tcp_listen(uint8_t family, uint16_t port, const uint8_t *address, int backlog) {
    int fd = socket(family == 6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    struct sockaddr_storage ss;
    socklen_t length = vroom_sockaddr_make(family, port, address, &ss);
    if (family == 6) {
        // `::` listens dual-stack (as the worker's UDP socket); any other
        // IPv6 address for IPv6 alone.
        int only = IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)&ss)->sin6_addr) ? 0 : 1;
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &only, sizeof(only));
    }
    if (bind(fd, (struct sockaddr *)&ss, length) != 0 || listen(fd, backlog) != 0) {
        int code = errno;
        close(fd);
        return -code;
    }
    return fd;
}

int vroom_tcp_accept(int listen_fd, uint8_t *family, uint16_t *port, uint8_t *address) {
    struct sockaddr_storage ss;
    socklen_t length = sizeof(ss);
    int fd = accept4(listen_fd, (struct sockaddr *)&ss, &length, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return errno == EWOULDBLOCK ? -EAGAIN : -errno;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    vroom_sockaddr_read(&ss, family, port, address);
    return fd;
}

int vroom_tcp_connect(uint8_t family, uint16_t port, const uint8_t *address, int receive_buffer, uint16_t local_port) {
    int fd = socket(family == 6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    if (receive_buffer > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof(receive_buffer));
    struct sockaddr_storage ss;
    if (local_port > 0) {
        // A TIME_WAIT connection on the port does not refuse the bind.
        int reuse = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, sizeof(reuse));
        static const uint8_t any[16] = {0};
        socklen_t local_length = vroom_sockaddr_make(family, local_port, any, &ss);
        if (bind(fd, (struct sockaddr *)&ss, local_length) != 0) {
            int code = errno;
            close(fd);
            return -code;
        }
    }
    socklen_t length = vroom_sockaddr_make(family, port, address, &ss);
    int connected;
    do { connected = connect(fd, (struct sockaddr *)&ss, length); } while (connected != 0 && errno == EINTR);
    if (connected != 0) {
        int code = errno;
        close(fd);
        return -code;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    int flags = fcntl(fd, F_GETFL, 0);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) {
        int code = errno;
        close(fd);
        return -code;
    }
    return fd;
}

int vroom_tcp_read(int fd, uint8_t *buffer, uint32_t capacity) {
    for (;;) {
        ssize_t n = recv(fd, buffer, capacity, MSG_DONTWAIT);
        if (n >= 0) return (int)n;
        if (errno == EINTR) continue;
        return errno == EWOULDBLOCK ? -EAGAIN : -errno;
    }
}

int vroom_tcp_write(int fd, const uint8_t *data, uint32_t length) {
    for (;;) {
        ssize_t n = send(fd, data, length, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n >= 0) return (int)n;
        if (errno == EINTR) continue;
        return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -errno;
    }
}

uint16_t vroom_socket_local_port(int fd) {
    struct sockaddr_storage ss;
    socklen_t length = sizeof(ss);
    if (getsockname(fd, (struct sockaddr *)&ss, &length) != 0) return 0;
    uint8_t family, address[16];
    uint16_t port;
    vroom_sockaddr_read(&ss, &family, &port, address);
    return port;
}

int vroom_poll_create(void) {
    int fd = epoll_create1(EPOLL_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

static int poll_control(int poll_fd, int op, int fd, uint64_t tag, int writable) {
    struct epoll_event event;
    memset(&event, 0, sizeof(event));
    event.events = EPOLLIN | (writable ? EPOLLOUT : 0);
    event.data.u64 = tag;
    return epoll_ctl(poll_fd, op, fd, &event) == 0 ? 0 : -errno;
}

int vroom_poll_add(int poll_fd, int fd, uint64_t tag, int writable) {
    return poll_control(poll_fd, EPOLL_CTL_ADD, fd, tag, writable);
}

int vroom_poll_modify(int poll_fd, int fd, uint64_t tag, int writable) {
    return poll_control(poll_fd, EPOLL_CTL_MOD, fd, tag, writable);
}

int vroom_poll_remove(int poll_fd, int fd) {
    return epoll_ctl(poll_fd, EPOLL_CTL_DEL, fd, NULL) == 0 ? 0 : -errno;
}

int vroom_poll_wait(int poll_fd, vroom_poll_event *events, int capacity, int timeout_ms) {
    if (capacity > 64) capacity = 64;
    struct epoll_event ready[64];
    int n = epoll_wait(poll_fd, ready, capacity, timeout_ms);
    if (n < 0) return errno == EINTR ? 0 : -errno;
    for (int i = 0; i < n; i++) {
        events[i].tag = ready[i].data.u64;
        uint32_t flags = 0;
        if (ready[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP | EPOLLRDHUP)) flags |= VROOM_POLL_READABLE;
        if (ready[i].events & EPOLLOUT) flags |= VROOM_POLL_WRITABLE;
        events[i].flags = flags;
        events[i].reserved = 0;
    }
    return n;
}
