#define _GNU_SOURCE
#include "CVroomUDP.h"
#include "vroom_address.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

int vroom_udp_receive_batch(int fd, vroom_datagram *slots, unsigned count) {
    if (count > VROOM_UDP_MAX_BATCH) count = VROOM_UDP_MAX_BATCH;
    struct mmsghdr messages[VROOM_UDP_MAX_BATCH];
    struct iovec vectors[VROOM_UDP_MAX_BATCH];
    struct sockaddr_storage addresses[VROOM_UDP_MAX_BATCH];
    for (unsigned i = 0; i < count; i++) {
        vectors[i].iov_base = slots[i].data;
        vectors[i].iov_len = slots[i].capacity;
        memset(&messages[i].msg_hdr, 0, sizeof(messages[i].msg_hdr));
        messages[i].msg_hdr.msg_name = &addresses[i];
        messages[i].msg_hdr.msg_namelen = sizeof(addresses[i]);
        messages[i].msg_hdr.msg_iov = &vectors[i];
        messages[i].msg_hdr.msg_iovlen = 1;
        messages[i].msg_len = 0;
    }
    int n = recvmmsg(fd, messages, count, MSG_DONTWAIT, NULL);
    if (n < 0) return (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? 0 : -errno;
    for (int i = 0; i < n; i++) {
        // A datagram larger than the slot is truncated by the kernel: mark it
        // so the caller drops it rather than parsing half a packet.
        slots[i].length = (messages[i].msg_hdr.msg_flags & MSG_TRUNC) ? 0 : messages[i].msg_len;
        vroom_sockaddr_read(&addresses[i], &slots[i].family, &slots[i].port, slots[i].address);
    }
    return n;
}

int vroom_udp_send_batch(int fd, const vroom_datagram *slots, unsigned count) {
    unsigned sent = 0;
    while (sent < count) {
        unsigned batch = count - sent;
        if (batch > VROOM_UDP_MAX_BATCH) batch = VROOM_UDP_MAX_BATCH;
        struct mmsghdr messages[VROOM_UDP_MAX_BATCH];
        struct iovec vectors[VROOM_UDP_MAX_BATCH];
        struct sockaddr_storage addresses[VROOM_UDP_MAX_BATCH];
        for (unsigned i = 0; i < batch; i++) {
            const vroom_datagram *d = &slots[sent + i];
            vectors[i].iov_base = d->data;
            vectors[i].iov_len = d->length;
            memset(&messages[i].msg_hdr, 0, sizeof(messages[i].msg_hdr));
            messages[i].msg_hdr.msg_name = &addresses[i];
            messages[i].msg_hdr.msg_namelen = vroom_sockaddr_make(d->family, d->port, d->address, &addresses[i]);
            messages[i].msg_hdr.msg_iov = &vectors[i];
            messages[i].msg_hdr.msg_iovlen = 1;
        }
        int n = sendmmsg(fd, messages, batch, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR) continue;
            // A full buffer drops the rest of this batch (a slow path must
            // never stall the worker); any other error is reported.
            if (errno == EAGAIN || errno == EWOULDBLOCK) return (int)sent;
            // One bad destination (e.g. EINVAL, ENETUNREACH) must not stop the
            // others: skip the first datagram and go on.
            sent += 1;
            continue;
        }
        sent += (unsigned)n;
        if ((unsigned)n < batch) {
            // sendmmsg stops at the first failing datagram: skip it.
            sent += 1;
        }
    }
    return (int)sent;
}

int vroom_udp_send_one(int fd, const uint8_t *data, uint32_t length, uint8_t family, uint16_t port, const uint8_t *address) {
    struct sockaddr_storage ss;
    socklen_t len = vroom_sockaddr_make(family, port, address, &ss);
    ssize_t n = sendto(fd, data, length, MSG_DONTWAIT, (struct sockaddr *)&ss, len);
    return n < 0 ? -errno : (int)n;
}

int vroom_udp_wait(int fd, int wake_fd, int timeout_ms) {
    struct pollfd fds[2] = {{.fd = fd, .events = POLLIN}, {.fd = wake_fd, .events = POLLIN}};
    int n = poll(fds, wake_fd >= 0 ? 2 : 1, timeout_ms);
    if (n < 0) return errno == EINTR ? 0 : -errno;
    int result = 0;
    if (fds[0].revents & (POLLIN | POLLERR | POLLHUP | POLLNVAL)) result |= 1;
    if (wake_fd >= 0 && (fds[1].revents & POLLIN)) result |= 2;
    return result;
}

int vroom_wake_create(void) {
    int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

void vroom_wake_signal(int wake_fd) {
    uint64_t one = 1;
    ssize_t ignored = write(wake_fd, &one, sizeof(one));
    (void)ignored;
}

void vroom_wake_clear(int wake_fd) {
    uint64_t value;
    ssize_t ignored = read(wake_fd, &value, sizeof(value));
    (void)ignored;
}

int vroom_udp_configure(int fd, int receive_buffer, int send_buffer) {
    if (receive_buffer > 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof(receive_buffer)) != 0) return -errno;
    if (send_buffer > 0 && setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &send_buffer, sizeof(send_buffer)) != 0) return -errno;
    int flags = fcntl(fd, F_GETFL, 0);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) return -errno;
    return 0;
}
