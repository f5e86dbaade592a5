import Testing

/// The SDK's real-time suites, one test at a time: each runs real VP8 and
/// Opus at 30 and 50 frames a second through real servers, and side by
/// side they starve one another (and the server-process tests) on 2 cores.
/// `scripts/test.sh` also runs this target after the others, not beside them.
@Suite(.serialized, .serverLogsOnFailure) enum ClientProcessTests {}
