// ICE-TCP (RFC 6544) sockets for the media workers, and the epoll set a
// worker waits on: its UDP socket, its wake eventfd, its TCP listening
// socket and the TCP streams it accepted. Same address conventions as
// vroom_datagram (family 4 or 6, port in host order, address bytes in
// network order), so IPv6 needs no new entry points later.
#ifndef CVROOMTCP_H
#define CVROOMTCP_H

#include <stdint.h>

/// Listens on TCP at address:port (port 0: the kernel picks), non-blocking,
/// SO_REUSEADDR, with `backlog`. Returns the descriptor or -errno.
int vroom_tcp_listen(uint8_t family, uint16_t port, const uint8_t *address, int backlog);

/// Accepts one waiting connection: non-blocking, close-on-exec, TCP_NODELAY
/// (media must not wait for Nagle). Fills the peer's address. Returns the
/// descriptor, -EAGAIN when none waits, or -errno.
int vroom_tcp_accept(int listen_fd, uint8_t *family, uint16_t *port, uint8_t *address);

/// Connects (blocking), then makes the socket non-blocking with
/// TCP_NODELAY: the client side, for tests. `receive_buffer` > 0 sets
/// SO_RCVBUF before connecting (a small window, for slow-reader tests);
/// `local_port` > 0 binds the same address family's wildcard address to
/// that port first, with SO_REUSEADDR (a TCP connection from the port of a
/// UDP socket, as two clients behind one NAT may look; -EADDRINUSE when a
/// TCP socket holds the port). Returns the descriptor or -errno.
int vroom_tcp_connect(uint8_t family, uint16_t port, const uint8_t *address, int receive_buffer, uint16_t local_port);

/// Reads what is waiting, without blocking. Returns the byte count, 0 at
/// end of stream, -EAGAIN when nothing waits, or -errno.
int vroom_tcp_read(int fd, uint8_t *buffer, uint32_t capacity);

/// Writes without blocking and without SIGPIPE. Returns the bytes the
/// kernel took (0 when its buffer is full), or -errno (the peer is gone).
int vroom_tcp_write(int fd, const uint8_t *data, uint32_t length);

/// The local port of a bound socket (0 on error).
uint16_t vroom_socket_local_port(int fd);

/// One ready descriptor from vroom_poll_wait: the tag it was added with and
/// VROOM_POLL_* bits.
typedef struct vroom_poll_event {
    uint64_t tag;
    uint32_t flags;
    uint32_t reserved;
} vroom_poll_event;

/// Readable, or an error or hang-up (a read then tells which).
#define VROOM_POLL_READABLE 1
#define VROOM_POLL_WRITABLE 4

/// A close-on-exec epoll descriptor, or -errno.
int vroom_poll_create(void);
/// Adds `fd` for reading, and for writing when `writable` is non-zero;
/// level-triggered. Returns 0 or -errno.
int vroom_poll_add(int poll_fd, int fd, uint64_t tag, int writable);
/// Changes whether `fd` is watched for writing. Returns 0 or -errno.
int vroom_poll_modify(int poll_fd, int fd, uint64_t tag, int writable);
/// Removes `fd`. Returns 0 or -errno.
int vroom_poll_remove(int poll_fd, int fd);
/// Waits up to `timeout_ms` for at most `capacity` (up to 64) ready
/// descriptors. Returns how many (0 on timeout or EINTR), or -errno.
int vroom_poll_wait(int poll_fd, vroom_poll_event *events, int capacity, int timeout_ms);

#endif
