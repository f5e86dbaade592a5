import Foundation

extension RoomService {
    /// `sendMessage` (PROTOCOL.md section 3.5). Checks in order: the sender
    /// is a current participant (`notJoined`, 409; pass nil before `join`);
    /// `contentType` is `application/json` (parameters such as `charset`
    /// ignored) and `content` parses as JSON (`invalidContent`, 400); at most
    /// `maxMessageBytes` UTF-8 bytes (`payloadTooLarge`, 413); fewer than
    /// `maxMessagesPerWindow` accepted in the last `messageRateWindow`
    /// (`rateLimited`, 429). A refused message changes nothing.
    ///
    /// Recipients: the connected participants whose identity is in `to`
    /// (unknown identities skipped), or everyone else connected when `to`
    /// is nil; never the sender. The sequence number counts from 0 per sender.
    public mutating func sendMessage(
        from sid: ParticipantSID?, content: String, contentType: String, to identities: [String]? = nil, now: Date
    ) throws(MessageRefusal) -> RoomOutcome<RoomMessage> {
        guard let sid, var sender = participants[sid], sender.isCurrent else { throw .notJoined }
        try checkContent(content, contentType: contentType)
        try checkRate(&sender.acceptedMessageTimes, now: now)
        let sequenceNumber = sender.nextSequenceNumber
        sender.nextSequenceNumber += 1
        sender.acceptedMessageTimes.append(now)
        participants[sid] = sender

        var recipients = connectedParticipants(in: sender.roomSID, except: sid)
        if let identities {
            let wanted = Set(identities)
            recipients = recipients.filter { participants[$0].map { wanted.contains($0.identity) } ?? false }
        }
        let message = RoomMessage(
            sid: MessageSID.random(using: &generator), roomSID: sender.roomSID, from: sid,
            fromIdentity: sender.identity, content: content, contentType: contentType,
            sequenceNumber: sequenceNumber, timestamp: now, recipients: recipients)
        var events = recipients.map { RoomEvent.notice(to: $0, .message(message)) }
        events.append(.messageSent(message))
        return RoomOutcome(value: message, events: events)
    }

    /// A server-to-participant message (REST `…/Messages`), with the same
    /// checks as `sendMessage`; `notJoined` when the participant is not
    /// current. The rate and the sequence number count per receiving
    /// participant. A reconnecting participant misses it (no replay).
    public mutating func sendServerMessage(
        to sid: ParticipantSID, content: String, contentType: String, now: Date
    ) throws(MessageRefusal) -> RoomOutcome<RoomMessage> {
        guard var receiver = participants[sid], receiver.isCurrent else { throw .notJoined }
        try checkContent(content, contentType: contentType)
        try checkRate(&receiver.serverMessageTimes, now: now)
        let sequenceNumber = receiver.nextServerSequenceNumber
        receiver.nextServerSequenceNumber += 1
        receiver.serverMessageTimes.append(now)
        participants[sid] = receiver
        let recipients = receiver.status == .connected ? [sid] : []
        let message = RoomMessage(
            sid: MessageSID.random(using: &generator), roomSID: receiver.roomSID, from: nil,
            fromIdentity: nil, content: content, contentType: contentType,
            sequenceNumber: sequenceNumber, timestamp: now, recipients: recipients)
        var events = recipients.map { RoomEvent.notice(to: $0, .message(message)) }
        events.append(.messageSent(message))
        return RoomOutcome(value: message, events: events)
    }

    func checkContent(_ content: String, contentType: String) throws(MessageRefusal) {
        let mediaType = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
            .first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard mediaType == "application/json" else { throw .invalidContent }
        // Parse first, as PROTOCOL.md orders the checks; the 64 KiB frame cap
        // of Signaling bounds the work for socket messages.
        guard (try? JSONSerialization.jsonObject(with: Data(content.utf8), options: [.fragmentsAllowed])) != nil else {
            throw .invalidContent
        }
        guard content.utf8.count <= configuration.maxMessageBytes else { throw .payloadTooLarge }
    }

    /// Drops times that left the rolling window (a message sent at t counts
    /// while now < t + window), then refuses when the window is full.
    func checkRate(_ times: inout [Date], now: Date) throws(MessageRefusal) {
        let windowStart = now.addingTimeInterval(-configuration.messageRateWindow)
        times.removeAll { $0 <= windowStart }
        guard times.count < configuration.maxMessagesPerWindow else { throw .rateLimited }
    }
}
