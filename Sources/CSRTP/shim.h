#ifndef VROOM_CSRTP_SHIM_H
#define VROOM_CSRTP_SHIM_H
#include <srtp2/srtp.h>

// libsrtp needs this many spare bytes after a packet for the auth tag/trailer.
static const int vroom_srtp_max_trailer_len = SRTP_MAX_TRAILER_LEN;
#endif
