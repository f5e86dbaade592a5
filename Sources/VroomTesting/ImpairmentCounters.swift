/// What one direction of the impairment relay did, in datagrams.
public struct ImpairmentCounters: Sendable, Equatable, Codable {
    /// Datagrams that arrived to be relayed this way.
    public var received = 0
    /// Dropped at random (`dropProbability`).
    public var dropped = 0
    /// Dropped by the bottleneck's full queue (`rateKilobitsPerSecond`).
    public var queueDropped = 0
    /// Held back for reordering.
    public var reordered = 0
    /// Datagrams sent twice (each counts once here, twice in `sent`).
    public var duplicated = 0
    public var corrupted = 0
    /// Datagrams handed to the kernel (copies included).
    public var sent = 0
    /// `send` failures (the target's port closed, a full buffer).
    public var sendErrors = 0

    public init() {}
}

/// Both directions of the relay: `upstream` is client -> target,
/// `downstream` target -> client.
public struct RelayCounters: Sendable, Equatable, Codable {
    public var upstream = ImpairmentCounters()
    public var downstream = ImpairmentCounters()
    /// Distinct client addresses seen (one relay socket each).
    public var clients = 0
    /// Datagrams from new clients refused because `maximumClients` was reached.
    public var refusedClients = 0

    public init() {}
}
