// SFU: the sans-I/O forwarding core (Router, Receiver, DownTrack).
// Filled by the media-plane issue.
