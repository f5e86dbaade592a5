import Packets

extension Router {
    /// One plaintext RTCP compound packet from a connection. From a
    /// publisher: SR (kept for RR's LSR/DLSR and for our SRs' RTP times).
    /// From a subscriber: NACK (answered from the history), PLI/FIR (passed
    /// to the publisher, throttled), RR (loss, jitter, RTT of the
    /// DownTrack), transport-cc feedback (mapped back to what was sent, for
    /// the downlink estimate) and REMB. Malformed packets are counted.
    public func receiveRTCP(
        _ packet: UnsafeMutableRawBufferPointer, length: Int, from transport: TransportID, now: MediaTime,
        into sink: inout some PacketSink
    ) {
        guard length >= 0, length <= packet.count,
            let compound = try? RTCPCompoundPacket(validating: UnsafeRawBufferPointer(rebasing: packet[0..<length]))
        else {
            counters.drop(.malformed)
            return
        }
        counters.rtcpReceived &+= 1
        if let session = publishers[transport] {
            session.lastHeard = now
            for view in compound {
                guard let typed = try? view.typed() else {
                    counters.drop(.malformed)
                    continue
                }
                if case .senderReport(let sr) = typed, let route = routes[Self.key(transport, sr.ssrc)],
                    !route.isRTX
                {
                    route.receiver.lastSenderReport = (sr.ntpTimestamp, sr.rtpTimestamp, now)
                    route.receiver.reception.recordSenderReport(ntpTimestamp: sr.ntpTimestamp, arrival: now.nanoseconds)
                }
            }
        } else if let session = subscribers[transport] {
            session.lastHeard = now
            for view in compound {
                guard let typed = try? view.typed() else {
                    counters.drop(.malformed)
                    continue
                }
                handleSubscriberRTCP(typed, session: session, now: now, into: &sink)
            }
        } else {
            counters.drop(.unknownTransport)
        }
    }

    func handleSubscriberRTCP(
        _ packet: RTCPPacket, session: SubscriberSession, now: MediaTime, into sink: inout some PacketSink
    ) {
        switch packet {
        case .genericNACK(let nack):
            guard let downTrack = downTrackRoutes[Self.key(session.transport, nack.mediaSSRC)] else { return }
            // A held track (switched off by the allocator or the subscriber)
            // is not repaired: its picture is gone until it comes back with
            // a keyframe, and on a congested link the copies crowd out the
            // tracks still on (bwe-grid: 180 retransmissions in the 2 s
            // after five of six tracks went off, and the loss they caused
            // switched the sixth off too).
            let repairs = !downTrack.isHeld
            let interval = Self.resendInterval(session)
            for sequenceNumber in nack.lostSequenceNumbers {
                counters.nackReceived &+= 1
                downTrack.stats.nacks &+= 1
                if repairs && downTrack.resent.mayResend(sequenceNumber, now: now, interval: interval) {
                    retransmit(sequenceNumber, downTrack: downTrack, now: now, into: &sink)
                }
            }
        case .pictureLossIndication(let pli):
            guard let downTrack = downTrackRoutes[Self.key(session.transport, pli.mediaSSRC)] else { return }
            downTrack.stats.plisReceived &+= 1
            if downTrack.switchOffReason == nil {
                requestKeyframe(downTrack.source, now: now, into: &sink)
            }
        case .fullIntraRequest(let fir):
            for entry in fir.entries {
                guard let downTrack = downTrackRoutes[Self.key(session.transport, entry.ssrc)] else { continue }
                downTrack.stats.firsReceived &+= 1
                if downTrack.switchOffReason == nil {
                    requestKeyframe(downTrack.source, now: now, into: &sink)
                }
            }
        case .receiverReport(let rr):
            for block in rr.reports { absorb(block, session: session, now: now) }
        case .senderReport(let sr):
            for block in sr.reports { absorb(block, session: session, now: now) }
        case .transportCCFeedback(let feedback):
            absorb(feedback, session: session, now: now)
        case .receiverEstimatedMaxBitrate(let remb):
            session.remb = (remb.bitrate, now)
            if !session.hasDownlinkFeedback { session.firstFeedback = now }
            session.hasDownlinkFeedback = true
            session.estimator.onREMB(bitsPerSecond: remb.bitrate, now: now)
        default:
            break
        }
    }

    /// A subscriber's report on one of our SSRCs: its loss and jitter, and
    /// the RTT from LSR/DLSR (RFC 3550 6.4.1: A - LSR - DLSR). For network
    /// quality, the link's own share: the report's loss since the previous
    /// one less what the publisher's link lost meanwhile (those numbers were
    /// never sent), and its jitter less the publisher's (variances add).
    func absorb(_ block: ReceptionReportView, session: SubscriberSession, now: MediaTime) {
        guard let downTrack = downTrackRoutes[Self.key(session.transport, block.ssrc)],
            block.ssrc == downTrack.ssrc
        else { return }
        let receiver = downTrack.source
        downTrack.stats.fractionLost = block.fractionLost
        downTrack.stats.lost = block.cumulativeLost
        downTrack.stats.jitter = block.jitter
        downTrack.stats.jitterSeconds = Double(block.jitter) / Double(receiver.clockRate)

        let upstreamLost = receiver.forwardedLoss
        if let previous = downTrack.previousReport {
            let expected = Int64(Int32(bitPattern: block.extendedHighestSequence &- previous.highest))
            // Reports out of order or from before a restart say nothing new.
            if expected > 0 && expected < 0x8000 {
                let lost = Int64(block.cumulativeLost &- previous.lost) &- (upstreamLost &- previous.upstreamLost)
                let count = LinkSample.LossCount(expected: expected, lost: lost)
                if downTrack.kind == .audio { session.linkAudio += count } else { session.linkVideo += count }
            }
        }
        downTrack.previousReport = (block.extendedHighestSequence, block.cumulativeLost, upstreamLost)
        let upstreamJitter = Double(receiver.reception.jitter) / Double(receiver.clockRate)
        let jitter = max(0, downTrack.stats.jitterSeconds * downTrack.stats.jitterSeconds - upstreamJitter * upstreamJitter)
            .squareRoot()
        if downTrack.kind == .audio {
            session.linkAudioJitter = max(session.linkAudioJitter ?? 0, jitter)
        } else {
            session.linkVideoJitter = max(session.linkVideoJitter ?? 0, jitter)
        }

        guard downTrack.recentSenderReports.contains(block.lastSR) else { return }
        let arrival = NTPTime.middle(NTPTime.timestamp(now, atZero: ntpAtZero))
        let rtt = arrival &- block.lastSR &- block.delaySinceLastSR
        // A negative RTT (clock steps, a lying peer) wraps to above 2^31.
        if rtt < 0x8000_0000 {
            downTrack.stats.roundTripTime = Double(rtt) / 65536
            session.roundTripTime = (Double(rtt) / 65536, now)
        }
    }

    /// How long after resending a packet a NACK for it is not answered
    /// again: the connection's round trip (transport-cc's, which a queue
    /// stretches; else the receiver reports'; 100 ms before either), within
    /// 10 ms to 1 s.
    static func resendInterval(_ session: SubscriberSession) -> UInt64 {
        let rtt: UInt64
        if session.hasDownlinkFeedback && session.transportCCExtensionID != nil {
            rtt = session.estimator.roundTripTime
        } else if let report = session.roundTripTime {
            rtt = UInt64(max(0, report.seconds) * 1e9)
        } else {
            rtt = 100_000_000
        }
        return min(max(rtt, 10_000_000), 1_000_000_000)
    }

    /// Resends what `downTrack` sent as `sequenceNumber`, from the history:
    /// on its RTX SSRC when the subscriber accepted RTX, else as the same
    /// packet again. A packet no longer held is a gap that cannot be
    /// repaired: ask the publisher for a keyframe.
    func retransmit(_ sequenceNumber: UInt16, downTrack: DownTrack, now: MediaTime, into sink: inout some PacketSink) {
        // The current mapping is the current layer's: its history holds the packet.
        let receiver = downTrack.source
        guard let sequence = downTrack.munger.inputSequence(forOutput: sequenceNumber),
            let history = receiver.history, let stored = history.packet(sequence),
            let view = try? RTPPacketView(validating: stored.bytes)
        else {
            counters.nackMisses &+= 1
            downTrack.stats.nackMisses &+= 1
            if receiver.kind == .video && receiver.isForwarding && downTrack.switchOffReason == nil {
                requestKeyframe(receiver, now: now, into: &sink)
            }
            return
        }
        let input = receiver.historyInput(view, payloadOffset: stored.payloadOffset, sequence: sequence)
        let parameters = downTrack.munger.parameters(for: input)
        guard send(view, payloadOffset: stored.payloadOffset, parameters: parameters, asRTX: true,
                   downTrack: downTrack, now: now, into: &sink) != nil
        else { return }
        counters.retransmissions &+= 1
        downTrack.stats.retransmissions &+= 1
    }
}
