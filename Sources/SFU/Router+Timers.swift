import Packets

extension Router {
    /// Sends what is due at `now`: pending keyframe requests, NACK retries
    /// to publishers (every 20 ms while packets are missing), transport-cc
    /// feedback to each publisher that negotiated it (every 50 ms), and
    /// every second an RR per publisher and an SR per DownTrack that has
    /// sent. Returns when to call again. Call it also after control commands.
    public func tick(now: MediaTime, into sink: inout some PacketSink) -> MediaTime {
        var deadline = now.adding(nanoseconds: reportInterval)
        lastNow = now
        tickWanted = nil

        // Each subscriber's share of its downlink, then its probes.
        if let next = allocateDue(now: now) { deadline = min(deadline, next) }
        if let next = sendProbes(now: now, into: &sink) { deadline = min(deadline, next) }
        if let next = releasePaced(now: now, into: &sink) { deadline = min(deadline, next) }

        // Simulcast layer choices: liveness, keyframe timeouts, back-offs.
        for receiver in receivers.values where receiver.isSimulcast {
            if let next = updateLayers(receiver, now: now) { deadline = min(deadline, next) }
        }

        for track in receivers.values {
            for index in 0..<track.layerCount {
                let receiver = track.layer(at: index)
                guard receiver.keyframeWanted && receiver.isForwarding else { continue }
                if let last = receiver.lastKeyframeRequest,
                    now.nanoseconds(since: last) < keyframeRequestInterval
                {
                    deadline = min(deadline, last.adding(nanoseconds: keyframeRequestInterval))
                } else {
                    sendPLI(receiver, now: now, into: &sink)
                }
            }
        }

        // Retries of NACKs to publishers; check again in 20 ms while any
        // packet is still missing.
        for track in receivers.values {
            for index in 0..<track.layerCount {
                let receiver = track.layer(at: index)
                guard !receiver.missing.isEmpty else { continue }
                sendNACK(receiver, now: now, into: &sink)
                if !receiver.missing.isEmpty { deadline = min(deadline, now.adding(nanoseconds: 20_000_000)) }
            }
        }

        if publishers.values.contains(where: { $0.transportCC != nil }) {
            if nextFeedback == nil || now >= nextFeedback! {
                for session in publishers.values { sendTransportCCFeedback(session, into: &sink) }
                nextFeedback = now.adding(nanoseconds: transportCCFeedbackInterval)
            }
            deadline = min(deadline, nextFeedback!)
        }

        if let next = nextReport, now < next {
            deadline = min(deadline, next)
        } else {
            if nextReport != nil {
                for session in publishers.values where !session.relayed {
                    sendReceiverReports(session, now: now, into: &sink)
                }
                for session in subscribers.values { sendSenderReports(session, now: now, into: &sink) }
            }
            markRates(now: now)
            nextReport = now.adding(nanoseconds: reportInterval)
            deadline = min(deadline, nextReport!)
        }
        return deadline
    }

    func sendTransportCCFeedback(_ session: PublisherSession, into sink: inout some PacketSink) {
        guard let recorder = session.transportCC else { return }
        let mediaSSRC = session.receivers.lazy.compactMap(\.primarySSRC).first ?? SSRC(0)
        // A few rounds at most: 500 packets each.
        var rounds = 0
        while rounds < 4, let feedback = recorder.nextFeedback(senderSSRC: session.rtcpSSRC, mediaSSRC: mediaSSRC) {
            rounds += 1
            switch writeRTCP(feedback, to: session.transport, into: &sink) {
            case .sent: counters.transportCCFeedbackSent &+= 1
            case .tooLarge: continue
            case .noSlot: return
            }
        }
    }

    /// One RR (up to 31 blocks per packet, RFC 3550) for the publisher's tracks.
    func sendReceiverReports(_ session: PublisherSession, now: MediaTime, into sink: inout some PacketSink) {
        let blocks = session.receivers.compactMap { $0.takeReceptionReport(now: now) }
        guard !blocks.isEmpty else { return }
        var start = 0
        while start < blocks.count {
            let end = min(blocks.count, start + 31)
            let report = ReceiverReport(ssrc: session.rtcpSSRC, reports: Array(blocks[start..<end]))
            start = end
            if writeRTCP(report, to: session.transport, into: &sink) == .noSlot { return }
        }
    }

    /// SRs for the subscriber's DownTracks that have sent, packed as many to
    /// a datagram as fit.
    func sendSenderReports(_ session: SubscriberSession, now: MediaTime, into sink: inout some PacketSink) {
        let ntp = NTPTime.timestamp(now, atZero: ntpAtZero)
        var writer: RTCPCompoundWriter?
        for downTrack in session.downTracks {
            guard let report = senderReport(downTrack, now: now, ntp: ntp) else { continue }
            if writer == nil || (try? writer!.append(report)) == nil {
                if let full = writer, full.count > 0 {
                    sink.commit(transport: session.transport, length: full.count, kind: .rtcp)
                    counters.rtcpSent &+= 1
                }
                guard let slot = sink.slot(for: session.transport) else {
                    counters.drop(.noSlot)
                    return
                }
                writer = RTCPCompoundWriter(buffer: slot)
                guard (try? writer!.append(report)) != nil else {
                    writer = nil
                    counters.drop(.tooLarge)
                    continue
                }
            }
            downTrack.recentSenderReports.append(NTPTime.middle(ntp))
            downTrack.stats.sendersReportsSent &+= 1
        }
        if let writer, writer.count > 0 {
            sink.commit(transport: session.transport, length: writer.count, kind: .rtcp)
            counters.rtcpSent &+= 1
        }
    }

    /// The SR of a DownTrack that has sent: its RTP time for `now` comes
    /// from the publisher's last SR when there is one for the source the
    /// DownTrack forwards (so audio and video of a publisher stay in sync),
    /// else from the last packet sent plus the wall time since.
    func senderReport(_ downTrack: DownTrack, now: MediaTime, ntp: UInt64) -> SenderReport? {
        let munger = downTrack.munger
        guard let lastForward = munger.lastForwardTime else { return nil }
        let receiver = downTrack.source
        let rate = UInt64(receiver.clockRate)
        let rtpTime: UInt32
        if let sr = receiver.lastSenderReport, munger.epoch == receiver.epoch {
            let elapsed = now.nanoseconds(since: sr.arrival) / 1000 &* rate / 1_000_000
            let source = sr.rtp &+ UInt32(truncatingIfNeeded: elapsed)
            rtpTime = munger.parameters(for: ForwardInput(sequence: 0, timestamp: source)).timestamp
        } else {
            let elapsed = now.nanoseconds(since: lastForward) / 1000 &* rate / 1_000_000
            rtpTime = munger.lastTimestamp &+ UInt32(truncatingIfNeeded: elapsed)
        }
        return SenderReport(
            ssrc: downTrack.ssrc, ntpTimestamp: ntp, rtpTimestamp: rtpTime, packetCount: downTrack.packetCount,
            octetCount: downTrack.octetCount)
    }
}

/// What `Router.writeRTCP` did with one packet.
enum RTCPWrite {
    case sent
    /// The connection cannot send now.
    case noSlot
    /// The packet did not fit a slot.
    case tooLarge
}

extension Router {
    /// Writes one RTCP packet for `transport` into `sink` and counts it
    /// (`rtcpSent`), or counts why not (`noSlot`, `tooLarge`).
    func writeRTCP(_ packet: some RTCPPacketWriter, to transport: TransportID, into sink: inout some PacketSink) -> RTCPWrite {
        guard let slot = sink.slot(for: transport) else {
            counters.drop(.noSlot)
            return .noSlot
        }
        guard let length = try? packet.write(to: slot) else {
            counters.drop(.tooLarge)
            return .tooLarge
        }
        sink.commit(transport: transport, length: length, kind: .rtcp)
        counters.rtcpSent &+= 1
        return .sent
    }
}
