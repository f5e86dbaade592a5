import Foundation

/// A run spread over processes (`--processes`) or machines (`--merge`):
/// each share's observations made one run.
extension RunObservations {
    public struct Overlap: Error, CustomStringConvertible, Equatable {
        public var identity: String
        public var description: String {
            "participant \(identity) is in two of the merged runs: give each its own --room-offset"
        }
    }

    /// One run of `shares` (each a run of its own process or machine),
    /// reported as `configuration` (whose `rooms` is their total). Rooms,
    /// joins and participants are put together; the window is the shortest
    /// of theirs (rates over the common part); the server's counts span the
    /// first scrape before to the last after; the testers' health is theirs
    /// together (`LoadTesterHealth.Sample.combined`). Identities must not
    /// repeat.
    public static func merged(_ shares: [RunObservations], configuration: LoadTestConfiguration) throws -> RunObservations {
        var seen = Set<String>()
        for join in shares.flatMap(\.joins) where !seen.insert(join.identity).inserted {
            throw Overlap(identity: join.identity)
        }
        let first = shares.min { $0.startedAt < $1.startedAt }
        let last = shares.max { $0.startedAt.addingTimeInterval($0.scrapeSeconds) < $1.startedAt.addingTimeInterval($1.scrapeSeconds) }
        let errors = shares.compactMap(\.metricsError)
        var o = RunObservations(
            configuration: configuration, startedAt: first?.startedAt ?? Date(), rooms: shares.flatMap(\.rooms),
            roomFailures: shares.reduce(into: [:]) { $0.merge($1.roomFailures) { a, _ in a } },
            joins: shares.flatMap(\.joins), windowStart: shares.flatMap(\.windowStart), windowEnd: shares.flatMap(\.windowEnd),
            windowSeconds: shares.map(\.windowSeconds).min() ?? 0,
            metricsBefore: first?.metricsBefore, metricsAfter: last?.metricsAfter,
            metricsError: errors.isEmpty ? nil : errors.joined(separator: "; "),
            scrapeSeconds: (last.map { $0.startedAt.addingTimeInterval($0.scrapeSeconds) }?.timeIntervalSince(first?.startedAt ?? Date())) ?? 0)
        o.tester = LoadTesterHealth.Sample.combined(shares.compactMap(\.tester))
        o.downlinkSeries = shares.reduce(into: [:]) { $0.merge($1.downlinkSeries) { a, _ in a } }
        o.relayQueueDrops = shares.reduce(into: [:]) { $0.merge($1.relayQueueDrops) { a, _ in a } }
        // A node's CPU over the window is the same for every share that saw it: the longest reading.
        for share in shares {
            o.nodeCPUSeconds.merge(share.nodeCPUSeconds) { max($0, $1) }
        }
        return o
    }

    /// JSON with non-finite numbers (a histogram's +Inf bucket) as strings.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "+Inf", negativeInfinity: "-Inf", nan: "NaN")
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "+Inf", negativeInfinity: "-Inf", nan: "NaN")
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
