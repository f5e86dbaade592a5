import Packets
import WebRTC

extension Router {
    /// One plaintext RTCP compound packet from a connection. From a
    /// publisher: SR (kept for RR's LSR/DLSR and for our SRs' RTP times).
    /// From a subscriber: NACK (answered from the history), PLI/FIR (passed
    /// to the publisher, throttled), RR (loss, jitter, RTT of the
    /// DownTrack); REMB and transport-cc feedback are ignored (the router
    /// does not adapt what it forwards). Malformed packets are counted.
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
            for view in compound {
                guard let typed = try? view.typed() else {
                    counters.drop(.malformed)
                    continue
                }
                if case .senderReport(let sr) = typed, let route = routes[Self.key(transport, sr.ssrc)],
                    !route.isRTX
                {
                    route.receiver.lastSenderReport = (sr.ntpTimestamp, sr.rtpTimestamp, now)
                }
            }
            _ = session
        } else if let session = subscribers[transport] {
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
            for sequenceNumber in nack.lostSequenceNumbers {
                counters.nackReceived &+= 1
                downTrack.stats.nacks &+= 1
                retransmit(sequenceNumber, downTrack: downTrack, now: now, into: &sink)
            }
        case .pictureLossIndication(let pli):
            guard let downTrack = downTrackRoutes[Self.key(session.transport, pli.mediaSSRC)] else { return }
            downTrack.stats.plisReceived &+= 1
            if downTrack.receiver.isForwarding {
                requestKeyframe(downTrack.receiver, now: now, into: &sink)
            }
        case .fullIntraRequest(let fir):
            for entry in fir.entries {
                guard let downTrack = downTrackRoutes[Self.key(session.transport, entry.ssrc)] else { continue }
                downTrack.stats.firsReceived &+= 1
                if downTrack.receiver.isForwarding {
                    requestKeyframe(downTrack.receiver, now: now, into: &sink)
                }
            }
        case .receiverReport(let rr):
            for block in rr.reports { absorb(block, session: session, now: now) }
        case .senderReport(let sr):
            for block in sr.reports { absorb(block, session: session, now: now) }
        default:
            break
        }
    }

    /// A subscriber's report on one of our SSRCs: its loss and jitter, and
    /// the RTT from LSR/DLSR (RFC 3550 6.4.1: A - LSR - DLSR).
    func absorb(_ block: ReceptionReportView, session: SubscriberSession, now: MediaTime) {
        guard let downTrack = downTrackRoutes[Self.key(session.transport, block.ssrc)],
            block.ssrc == downTrack.ssrc
        else { return }
        downTrack.stats.fractionLost = block.fractionLost
        downTrack.stats.lost = block.cumulativeLost
        downTrack.stats.jitter = block.jitter
        downTrack.stats.jitterSeconds = Double(block.jitter) / Double(downTrack.receiver.clockRate)
        guard block.lastSR != 0, let sent = downTrack.lastSenderReportNTP, block.lastSR == sent else { return }
        let arrival = NTPTime.middle(NTPTime.timestamp(now, atZero: ntpAtZero))
        let rtt = arrival &- block.lastSR &- block.delaySinceLastSR
        // A negative RTT (clock steps, a lying peer) wraps to above 2^31.
        if rtt < 0x8000_0000 { downTrack.stats.roundTripTime = Double(rtt) / 65536 }
    }

    /// Resends what `downTrack` sent as `sequenceNumber`, from the history:
    /// on its RTX SSRC when the subscriber accepted RTX, else as the same
    /// packet again. A packet no longer held is a gap that cannot be
    /// repaired: ask the publisher for a keyframe.
    func retransmit(_ sequenceNumber: UInt16, downTrack: DownTrack, now: MediaTime, into sink: inout some PacketSink) {
        let receiver = downTrack.receiver
        guard let sequence = downTrack.munger.inputSequence(forOutput: sequenceNumber),
            let history = receiver.history, let stored = history.packet(sequence),
            let view = try? RTPPacketView(validating: stored.bytes)
        else {
            counters.nackMisses &+= 1
            downTrack.stats.nackMisses &+= 1
            if receiver.kind == .video && receiver.isForwarding {
                requestKeyframe(receiver, now: now, into: &sink)
            }
            return
        }
        let input = receiver.historyInput(view, payloadOffset: stored.payloadOffset, sequence: sequence)
        let parameters = downTrack.munger.parameters(for: input)
        guard send(view, payloadOffset: stored.payloadOffset, parameters: parameters, asRTX: true,
                   downTrack: downTrack, into: &sink) != nil
        else { return }
        counters.retransmissions &+= 1
        downTrack.stats.retransmissions &+= 1
    }
}
