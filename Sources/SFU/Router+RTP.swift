import Packets

extension Router {
    /// One plaintext RTP packet from a publisher connection (SRTP already
    /// removed in place): routed to its receiver, and a rewritten copy
    /// written into `sink` for each DownTrack that forwards it. Anything
    /// wrong with it is dropped and counted, never thrown. Allocates nothing
    /// once the packet's SSRC is known. A video packet is copied into the
    /// track's NACK history.
    public func receiveRTP(
        _ packet: UnsafeMutableRawBufferPointer, length: Int, from publisher: TransportID, now: MediaTime,
        into sink: inout some PacketSink
    ) {
        receiveRTP(packet, length: length, from: publisher, now: now, into: &sink, slot: nil)
    }

    /// As `receiveRTP`, for a packet at the start of `slot`, an ingress
    /// ring slot whose buffer is one of `buffers` (`bufferSize` bytes): a
    /// video packet is kept in the NACK history without a copy, the history
    /// taking the buffer itself and putting another of the pool's in `slot`
    /// (the ring receives into that one next).
    public func receiveRTP(
        slot: inout UnsafeMutableRawBufferPointer, length: Int, from publisher: TransportID, now: MediaTime,
        into sink: inout some PacketSink
    ) {
        let packet = slot
        guard slot.count == buffers.bufferSize else {
            return receiveRTP(packet, length: length, from: publisher, now: now, into: &sink, slot: nil)
        }
        withUnsafeMutablePointer(to: &slot) {
            receiveRTP(packet, length: length, from: publisher, now: now, into: &sink, slot: $0)
        }
    }

    @inline(__always)
    private func receiveRTP(
        _ packet: UnsafeMutableRawBufferPointer, length: Int, from publisher: TransportID, now: MediaTime,
        into sink: inout some PacketSink, slot: UnsafeMutablePointer<UnsafeMutableRawBufferPointer>?
    ) {
        guard length >= 0, length <= packet.count,
            let view = try? RTPPacketView(validating: UnsafeRawBufferPointer(rebasing: packet[0..<length]))
        else {
            counters.drop(.malformed)
            return
        }
        guard let session = publishers[publisher] else {
            counters.drop(.unknownTransport)
            return
        }
        session.lastHeard = now
        // Every packet counts for congestion control, probes included: the
        // sender's estimate is built on them.
        if let recorder = session.transportCC, let id = session.transportCCExtensionID,
            let value = view.extensionValue(id: id), value.count == 2
        {
            recorder.record(value.sfuU16(0), at: now)
        }
        let route: Route
        if let known = routes[Self.key(publisher, view.ssrc)] {
            route = known
        } else {
            switch learnRoute(view, session: session) {
            case .route(let learned): route = learned
            case .drop(let reason):
                counters.drop(reason)
                return
            }
        }
        lastNow = now
        let receiver = route.receiver
        var sequenceNumber = view.sequenceNumber
        var payloadOffset = view.headerLength
        if route.isRTX {
            // RFC 4588: the original sequence number, then the payload. An
            // RTX packet with nothing in it is a bandwidth probe.
            let payload = view.payload
            guard payload.count >= 2 else {
                counters.drop(payload.isEmpty ? .rtxProbe : .malformed)
                receiver.stats.rtxProbesDropped &+= 1
                return
            }
            sequenceNumber = payload.sfuU16(0)
            payloadOffset &+= 2
        }
        // A relayed packet was counted by the home worker's router.
        if !receiver.isRelayed { counters.packetsReceived[receiver.kind] &+= 1 }
        switch receiver.receive(
            view, payloadOffset: payloadOffset, sequenceNumber: sequenceNumber, retransmitted: route.isRTX, now: now,
            slot: slot)
        {
        case .drop(let reason):
            counters.drop(reason)
            if receiver.nackDue { sendNACK(receiver, now: now, into: &sink) }
        case .forward(let input):
            if receiver.nackDue { sendNACK(receiver, now: now, into: &sink) }
            guard receiver.isForwarding else {
                counters.drop(.disabled)
                return
            }
            // RFC 6464: V bit, then the level in -dBov (7 bits). A muted
            // (disabled) track is never a speaker, so only forwarded audio.
            if receiver.kind == .audio, let id = session.audioLevelExtensionID,
                let value = view.extensionValue(id: id), value.count >= 1
            {
                receiver.audioActivity.packets &+= 1
                receiver.audioActivity.levelSum &+= UInt32(value[0] & 0x7F)
            }
            if receiver.isSimulcast {
                // The track's DownTracks hang off its lowest layer; each takes
                // only the layer it forwards (or the target's keyframe).
                let downTracks = (receiver.lowestLayer ?? receiver).downTracks
                let layer = receiver.layer
                downTracks.forEachUnretained { downTrack in
                    forwardLayer(
                        view, payloadOffset: payloadOffset, input: input, layer: layer, to: downTrack, now: now,
                        into: &sink)
                }
            } else {
                let downTracks = receiver.downTracks
                downTracks.forEachUnretained { downTrack in
                    forward(view, payloadOffset: payloadOffset, input: input, to: downTrack, now: now, into: &sink)
                }
            }
        }
    }

    /// NACKs the publisher for what its link lost that is due now (all new
    /// gaps at once; retries from `tick`). Writes the NACK without an array.
    func sendNACK(_ receiver: Receiver, now: MediaTime, into sink: inout some PacketSink) {
        receiver.nackDue = false
        guard !receiver.missing.isEmpty, let mediaSSRC = receiver.primarySSRC,
            let session = publishers[receiver.publisher]
        else { return }
        guard let slot = sink.slot(for: receiver.publisher) else {
            counters.drop(.noSlot)
            return
        }
        guard var writer = NACKWriter(buffer: slot, senderSSRC: session.rtcpSSRC, mediaSSRC: mediaSSRC) else {
            counters.drop(.tooLarge)
            return
        }
        // Older than the history is kept for cannot help any subscriber.
        let highest = receiver.window.highest ?? 0
        let oldest = highest > UInt64(PacketHistory.capacity) ? highest - UInt64(PacketHistory.capacity) : 0
        receiver.missing.takeDue(now: now, oldest: oldest) { _ = writer.append($0) }
        guard let length = writer.finish() else { return }
        sink.commit(transport: receiver.publisher, length: length, kind: .rtcp)
        counters.nackSent &+= UInt64(writer.count)
        counters.rtcpSent &+= 1
        receiver.stats.nacksSent &+= UInt64(writer.count)
    }

    /// A packet of simulcast layer `layer` for one DownTrack: its current
    /// layer goes on to `forward`; the target's keyframe switches the
    /// DownTrack to the target (the munger starts a new mapping there, so
    /// the subscriber's numbering continues); anything else is not this
    /// DownTrack's. While the target's keyframe is awaited, its other
    /// packets ask for one (PLI on the target's SSRC, throttled per layer).
    @inline(__always)
    func forwardLayer(
        _ view: RTPPacketView, payloadOffset: Int, input: ForwardInput, layer: Int, to downTrack: DownTrack,
        now: MediaTime, into sink: inout some PacketSink
    ) {
        if layer != downTrack.currentLayer {
            guard layer == downTrack.targetLayer, downTrack.switchOffReason == nil else { return }
            guard input.isKeyframe else {
                requestKeyframe(downTrack.receiver.layer(at: layer), now: now, into: &sink)
                return
            }
            if downTrack.currentLayer != nil {
                downTrack.stats.layerSwitches &+= 1
                counters.layerSwitches &+= 1
            }
            downTrack.currentLayer = layer
            downTrack.selector?.switched(to: layer)
            downTrack.munger.requestResync()
            downTrack.temporal.restart()
            // The subscriber's next report is on another layer's loss figures.
            downTrack.previousReport = nil
        }
        forward(view, payloadOffset: payloadOffset, input: input, to: downTrack, now: now, into: &sink)
    }

    /// Decide, then act: the munger's decision for this subscriber, then the
    /// write into the sink.
    @inline(__always)
    func forward(
        _ view: RTPPacketView, payloadOffset: Int, input: ForwardInput, to downTrack: DownTrack, now: MediaTime,
        into sink: inout some PacketSink
    ) {
        if input.temporalLayer != nil {
            let before = downTrack.temporal.current
            let admitted = downTrack.temporal.admit(input)
            if downTrack.temporal.current != before {
                if downTrack.munger.lastForwardTime != nil {
                    downTrack.stats.layerSwitches &+= 1
                    counters.layerSwitches &+= 1
                }
                downTrack.stats.layer = downTrack.forwardedLayer()
            }
            guard admitted else {
                downTrack.munger.skip(input)
                downTrack.stats.temporalSkipped &+= 1
                return
            }
        }
        switch downTrack.munger.translate(input, now: now) {
        case .drop(let reason):
            downTrack.stats.dropped &+= 1
            switch reason {
            case .paused: counters.drop(.paused)
            case .tooOld: counters.drop(.tooOld)
            case .waitingForKeyframe:
                counters.drop(.waitingForKeyframe)
                requestKeyframe(downTrack.source, now: now, into: &sink)
            }
        case .forward(let parameters):
            // A new mapping (first packet, a switch, a resume): the layer
            // figure changes here, not per packet.
            if parameters.isResync { downTrack.stats.layer = downTrack.forwardedLayer() }
            guard let length = send(view, payloadOffset: payloadOffset, parameters: parameters, asRTX: false,
                                    downTrack: downTrack, now: now, into: &sink)
            else { return }
            let kind = downTrack.kind
            counters.packetsForwarded[kind] &+= 1
            counters.bytesForwarded[kind] &+= UInt64(length)
            downTrack.stats.packets &+= 1
            downTrack.stats.bytes &+= UInt64(length)
            downTrack.packetCount &+= 1
            downTrack.octetCount &+= UInt32(truncatingIfNeeded: view.bytes.count &- payloadOffset &- view.paddingLength)
        }
    }

    /// Writes one copy's header into a slot of the subscriber's connection
    /// and commits it with the payload left where it is (the sink encrypts
    /// it across); the length, or nil when dropped (no slot, too large).
    func send(
        _ view: RTPPacketView, payloadOffset: Int, parameters: ForwardParameters, asRTX: Bool,
        downTrack: DownTrack, now: MediaTime, into sink: inout some PacketSink
    ) -> Int? {
        let transport = downTrack.subscriber
        let session = downTrack.session
        // A subscriber's pacer may hold the copy back (a burst over its
        // budget); it then leaves from `tick`.
        guard mayLeaveNow(downTrack, of: session, size: view.bytes.count, asRTX: asRTX, now: now) else {
            return hold(
                view, payloadOffset: payloadOffset, parameters: parameters, asRTX: asRTX, downTrack: downTrack, now: now)
        }
        guard let slot = sink.slot(for: transport) else {
            counters.drop(.noSlot)
            return nil
        }
        guard let head = downTrack.writeHead(
            view, payloadOffset: payloadOffset, parameters: parameters, asRTX: asRTX,
            transportSequence: session.sendHistory.nextWireSequence, into: slot)
        else {
            counters.drop(.tooLarge)
            return nil
        }
        let length = head.length &+ head.tail.count
        // Feedback maps back to this (send time, size) by the number.
        if session.transportCCExtensionID != nil { session.sendHistory.record(size: length, at: now) }
        session.estimator.onPacketSent(size: length, at: now)
        sink.commit(transport: transport, length: head.length, appending: head.tail)
        return length
    }
}
