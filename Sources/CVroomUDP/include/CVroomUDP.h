// Batched UDP I/O for the media workers (filled by the media-plane issue).
#ifndef CVROOMUDP_H
#define CVROOMUDP_H
#endif
