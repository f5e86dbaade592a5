// Codecs: libvpx VP8 and libopus encoders/decoders and synthetic sources.
// Filled by the client SDK issue; CVPX and COpus are proven by
// Tests/SystemLibrariesTests today.
