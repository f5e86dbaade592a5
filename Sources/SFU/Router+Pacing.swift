import Packets

/// Pacing of subscriber connections (issue 13, PROTOCOL.md section 7): a
/// connection whose client gives feedback gets a `Pacer` at 2.5 times its
/// estimate (at least 250 kbit/s). A packet leaves at once while nothing is
/// queued and the budget has room, the common case, written straight into
/// the egress slot as before. Otherwise (a keyframe burst) it is written
/// into a slot of the room's `HeldPacketPool` and queued, and `tick` sends
/// it when the budget allows: audio first, then retransmissions, video,
/// padding. Its transport-wide number and its send record are written when
/// it leaves, so the estimator sees when it really went out. Video that
/// waited past the pacer's limit (2 s) is dropped, counted `pacer_queue`.
extension Router {
    /// Smaller rings than the pacer's defaults: 512 video packets are more
    /// than a second of a 3 Mbit/s subscription, and the room's pool holds
    /// 1,024 in all.
    static let subscriberPacing = Pacer.Configuration(
        audioCapacity: 64, retransmissionCapacity: 256, videoCapacity: 512, paddingCapacity: 16)
    /// The most of the room's held-packet pool one connection may take (a
    /// quarter): its rings hold up to 832, so two slow subscribers could
    /// otherwise take every slot and leave the others' bursts, audio
    /// included, nowhere to wait.
    static let heldPerConnection = HeldPacketPool.capacity / 4

    /// The pacer's figures for `subscriber`: queued packets, the expected
    /// queueing delay now, and its counters; nil while it is not paced.
    public func pacerFigures(subscriber: TransportID) -> (queued: Int, expectedDelay: UInt64, counters: Pacer.Counters)? {
        guard let pacer = subscribers[subscriber]?.pacer else { return nil }
        return (pacer.queuedPackets, pacer.expectedQueueNanoseconds, pacer.counters)
    }

    /// Paces `session` at its estimate from now on (called with each
    /// allocation while its client gives feedback).
    func pace(_ session: SubscriberSession) {
        if session.pacer == nil { session.pacer = Pacer(configuration: Self.subscriberPacing) }
        session.pacer?.setRate(bitsPerSecond: Int(session.estimator.estimate))
    }

    /// Whether a copy for `downTrack` (of `session`) goes out now (true),
    /// or is to be held (`hold`). Unpaced connections always go. The pacer
    /// is asked in place: testing `pacer != nil` first copied it, with a
    /// retain and release of its queues, per copy.
    @inline(__always)
    func mayLeaveNow(_ downTrack: DownTrack, of session: SubscriberSession, size: Int, asRTX: Bool, now: MediaTime)
        -> Bool
    {
        let pacingClass: PacingClass = downTrack.kind == .audio ? .audio : asRTX ? .retransmission : .video
        return session.pacer?.admitDirect(size: size, class: pacingClass, now: now) ?? true
    }

    /// Writes the copy into a held slot and queues it; its length, or nil
    /// when dropped (no slot, queue full, too large).
    func hold(
        _ view: RTPPacketView, payloadOffset: Int, parameters: ForwardParameters, asRTX: Bool,
        downTrack: DownTrack, now: MediaTime
    ) -> Int? {
        let session = downTrack.session
        guard session.heldPackets < Self.heldPerConnection, let (handle, bytes) = heldPackets.take() else {
            counters.drop(.pacerQueue)
            return nil
        }
        guard let length = downTrack.write(
            view, payloadOffset: payloadOffset, parameters: parameters, asRTX: asRTX, transportSequence: 0,
            into: bytes)
        else {
            heldPackets.release(handle)
            counters.drop(.tooLarge)
            return nil
        }
        heldPackets.set(
            handle, HeldPacketPool.Entry(length: length, transportSequenceOffset: downTrack.transportSequenceOffset ?? -1))
        let pacingClass: PacingClass = downTrack.kind == .audio ? .audio : asRTX ? .retransmission : .video
        guard session.pacer?.enqueue(handle, size: length, class: pacingClass, now: now) == true else {
            heldPackets.release(handle)
            counters.drop(.pacerQueue)
            return nil
        }
        session.heldPackets &+= 1
        if let next = session.pacer?.nextSendTime(now: now) { tickWanted = min(tickWanted ?? next, next) }
        return length
    }

    /// Sends what each pacer lets go at `now`; returns when the next may.
    func releasePaced(now: MediaTime, into sink: inout some PacketSink) -> MediaTime? {
        var deadline: MediaTime?
        for session in subscribers.values where (session.pacer?.queuedPackets ?? 0) > 0 {
            while let output = session.pacer?.dequeue(now: now) {
                switch output {
                case .drop(let packet):
                    heldPackets.release(packet.handle)
                    session.heldPackets &-= 1
                    counters.drop(.pacerQueue)
                case .send(let packet):
                    defer {
                        heldPackets.release(packet.handle)
                        session.heldPackets &-= 1
                    }
                    guard let slot = sink.slot(for: session.transport) else {
                        counters.drop(.noSlot)
                        continue
                    }
                    let entry = heldPackets.entries[Int(packet.handle)]
                    guard entry.length <= slot.count else {
                        counters.drop(.tooLarge)
                        continue
                    }
                    slot.copyMemory(from: UnsafeRawBufferPointer(rebasing: heldPackets.bytes(packet.handle)[0..<entry.length]))
                    if entry.transportSequenceOffset >= 0 {
                        slot.sfuSetU16(session.sendHistory.nextWireSequence, at: entry.transportSequenceOffset)
                        session.sendHistory.record(size: entry.length, at: now)
                    }
                    session.estimator.onPacketSent(size: entry.length, at: now)
                    sink.commit(transport: session.transport, length: entry.length, kind: .rtp)
                    counters.pacerHeldPackets &+= 1
                    counters.pacerDelayNanoseconds &+= now.nanoseconds(since: packet.enqueued)
                }
            }
            if let next = session.pacer?.nextSendTime(now: now) { deadline = min(deadline ?? next, next) }
        }
        return deadline
    }

    /// Frees what `session`'s pacer still holds (the connection is going).
    func dropHeld(_ session: SubscriberSession) {
        session.pacer?.removeAll { heldPackets.release($0.handle) }
        session.pacer = nil
        session.heldPackets = 0
    }
}
