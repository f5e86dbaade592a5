
/// How many participants of the node are at each network quality level
/// (PROTOCOL.md 3.8), for `vroom_network_quality_participants{level}`.
/// Participants whose monitor has no sample yet are not counted.
public struct NetworkQualityCensus: Sendable, Equatable {
    /// Index = level, 0-5.
    public var participantsAtLevel = [Int](repeating: 0, count: 6)

    public init() {}

    mutating func add(_ other: NetworkQualityCensus) {
        for level in participantsAtLevel.indices { participantsAtLevel[level] += other.participantsAtLevel[level] }
    }
}

extension MediaWorkerRooms {
    /// This worker's participants by level (a job: reads the monitors).
    func networkQualityCensus() -> NetworkQualityCensus {
        var census = NetworkQualityCensus()
        for signals in signals.values {
            for monitor in signals.monitors.values {
                guard let level = monitor.current?.level, census.participantsAtLevel.indices.contains(level) else { continue }
                census.participantsAtLevel[level] += 1
            }
        }
        return census
    }
}

extension MediaPlane {
    /// The node's participants by network quality level (asks every worker).
    public func networkQualityCensus() async -> NetworkQualityCensus {
        var total = NetworkQualityCensus()
        for worker in workers {
            total.add(await worker.perform { rooms in rooms.networkQualityCensus() })
        }
        return total
    }
}
