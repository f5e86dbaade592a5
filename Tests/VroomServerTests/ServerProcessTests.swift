import Testing

/// Every test that starts `vroom-server` processes, one at a time: each
/// process wants the 2 cores for a moment, and run side by side (with the
/// 200-client load test among them) they made one another's generous
/// timeouts look tight on a loaded machine.
@Suite(.serialized) enum ServerProcessTests {}
