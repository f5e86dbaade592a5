import Foundation

/// The `Callback` URLs subscribed to participants' messages through
/// `POST …/MessageSubscriptions` (PROTOCOL.md section 6). The server's event
/// recorder asks it, per sent message, where to POST the `MessageCallback`;
/// a participant's subscriptions end with its session.
public actor MessageSubscriptions {
    private var callbacks: [String: [String]] = [:]
    /// 10 URLs per participant: a subscription is one webhook delivery per
    /// message, so this bounds the fan-out of one 10-per-minute sender to
    /// 100 POSTs a minute.
    public static let maxPerParticipant = 10

    public init() {}

    /// Adds `callback` for the participant (`PA…`); a URL already there is
    /// not added twice. False when the participant already has the maximum.
    @discardableResult
    public func subscribe(participant: String, callback: String) -> Bool {
        var list = callbacks[participant, default: []]
        if list.contains(callback) { return true }
        guard list.count < Self.maxPerParticipant else { return false }
        list.append(callback)
        callbacks[participant] = list
        return true
    }

    /// Where this participant's messages go, in subscription order.
    public func callbacks(for participant: String) -> [String] {
        callbacks[participant] ?? []
    }

    /// The participant's session is over: forget its subscriptions.
    public func remove(participant: String) {
        callbacks[participant] = nil
    }
}
