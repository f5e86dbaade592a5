// Socket addresses to and from the (family, port, address) triple both the
// UDP and the TCP entry points use: family 4 or 6, port in host order,
// address bytes in network order (4 or 16 of them). Private to this target.
#ifndef VROOM_ADDRESS_H
#define VROOM_ADDRESS_H

#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

// Family 4 goes out as a sockaddr_in also on a dual-stack IPv6 socket:
// Linux hands AF_INET destinations to IPv4 unless the socket is IPV6_V6ONLY.
static inline socklen_t vroom_sockaddr_make(uint8_t family, uint16_t port, const uint8_t *address,
                                            struct sockaddr_storage *ss) {
    memset(ss, 0, sizeof(*ss));
    if (family == 6) {
        struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
        sin6->sin6_family = AF_INET6;
        sin6->sin6_port = htons(port);
        memcpy(&sin6->sin6_addr, address, 16);
        return sizeof(*sin6);
    }
    struct sockaddr_in *sin = (struct sockaddr_in *)ss;
    sin->sin_family = AF_INET;
    sin->sin_port = htons(port);
    memcpy(&sin->sin_addr, address, 4);
    return sizeof(*sin);
}

// An IPv4 peer of a dual-stack socket (::ffff:a.b.c.d) reads as family 4,
// as on an IPv4 socket: one key per peer, and STUN answers with its IPv4.
// `address` has room for 16 bytes. Family 0 for anything else.
static inline void vroom_sockaddr_read(const struct sockaddr_storage *ss, uint8_t *family, uint16_t *port,
                                       uint8_t *address) {
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;
        *family = 4;
        *port = ntohs(sin->sin_port);
        memcpy(address, &sin->sin_addr, 4);
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;
        *port = ntohs(sin6->sin6_port);
        if (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr)) {
            *family = 4;
            memcpy(address, (const uint8_t *)&sin6->sin6_addr + 12, 4);
        } else {
            *family = 6;
            memcpy(address, &sin6->sin6_addr, 16);
        }
    } else {
        *family = 0;
        *port = 0;
    }
}

#endif
