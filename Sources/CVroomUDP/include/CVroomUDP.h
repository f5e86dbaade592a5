// Batched UDP I/O for the media workers: recvmmsg/sendmmsg and eventfd,
// which Glibc's Swift overlay does not import. Only CVroomUDP.c defines
// _GNU_SOURCE (C-LIBRARIES.md: doing it in a module-map shim breaks the
// build), so this header declares its own plain structs.
#ifndef CVROOMUDP_H
#define CVROOMUDP_H

#include <stdint.h>

// ICE-TCP sockets and the workers' epoll set.
#include "CVroomTCP.h"

/// One datagram slot: the caller owns `data` (capacity bytes). On receive the
/// C side fills length and the source; on send the caller fills length and
/// the destination. Addresses: family 4 or 6, port in host order, address
/// bytes in network order (4 or 16 used).
typedef struct vroom_datagram {
    uint8_t *data;
    uint32_t capacity;
    uint32_t length;
    uint8_t family;
    uint8_t reserved;
    uint16_t port;
    uint8_t address[16];
} vroom_datagram;

/// The most datagrams one call moves (the mmsghdr array lives on the stack).
#define VROOM_UDP_MAX_BATCH 64

/// Receives up to `count` datagrams without blocking. Returns how many
/// (0 when none is waiting), or -errno.
int vroom_udp_receive_batch(int fd, vroom_datagram *slots, unsigned count);

/// Sends `count` datagrams, each to its own destination. Returns how many
/// the kernel took (a short count means the socket buffer is full: the rest
/// are dropped by the caller, never waited for), or -errno.
int vroom_udp_send_batch(int fd, const vroom_datagram *slots, unsigned count);

/// Sends one datagram. Returns the bytes sent or -errno.
int vroom_udp_send_one(int fd, const uint8_t *data, uint32_t length, uint8_t family, uint16_t port, const uint8_t *address);

/// Waits until `fd` is readable, `wake_fd` is signalled, or `timeout_ms`
/// passes. Returns a bit set: 1 = fd readable, 2 = woken; 0 on timeout; -errno.
int vroom_udp_wait(int fd, int wake_fd, int timeout_ms);

/// A non-blocking eventfd for waking a worker; -errno on failure.
int vroom_wake_create(void);
/// Signals `wake_fd` (from any thread).
void vroom_wake_signal(int wake_fd);
/// Clears `wake_fd`.
void vroom_wake_clear(int wake_fd);

/// Sets SO_RCVBUF/SO_SNDBUF (bytes; 0 leaves one unchanged) and O_NONBLOCK.
/// Returns 0 or -errno.
int vroom_udp_configure(int fd, int receive_buffer, int send_buffer);

#endif
