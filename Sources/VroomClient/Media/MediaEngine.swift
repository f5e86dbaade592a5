import NIOCore
import Packets
import SDP
import WebRTC

/// The media half of a client: its two PeerConnections to the server
/// (PROTOCOL.md 3.1), publisher (the client offers) and subscriber (the
/// server offers), with the same `WebRTC`, `SDP` and `Packets` code the
/// server runs, in the client role: controlling ICE toward the server's
/// ICE-lite host candidate, DTLS client, SRTP. It moves encoded frames:
/// VP8 frames in are packetized (RFC 7741), Opus packets sent as they are;
/// remote packets come out as complete, in-order frames, repaired with
/// NACK and PLI.
///
/// Confined to one event loop: every method must be called on
/// `eventLoop`; `onEvent` is called there; timers and sockets live there.
/// `@unchecked Sendable` because of that confinement (checked by
/// `preconditionInEventLoop` in every entry point), so an owner may keep
/// it in a Sendable type and hop to the loop to use it.
final class MediaEngine: @unchecked Sendable {
    let eventLoop: any EventLoop
    let configuration: MediaEngineConfiguration
    private let onEvent: (MediaEngineEvent) -> Void
    private let certificate: DTLSCertificate
    private let publisher: EnginePeerConnection
    private let subscriber: EnginePeerConnection
    private var generator = SystemRandomNumberGenerator()
    private let cname: String
    private let streamID: String
    private let sessionID: String
    private var isClosed = false

    // Publisher connection.
    private var publisherICE: ICECredentials
    private var publishVersion: UInt64 = 1
    private var slots: [PublishOfferWriter.Slot] = []
    private var nextMID = 0
    /// Per track name its senders: one, or one per simulcast layer, lowest first.
    private var senders: [String: [LocalTrackSender]] = [:]
    /// Which track and layer (index in `senders[name]`) an SSRC sends.
    private var senderNames: [SSRC: (name: String, layer: Int)] = [:]
    private var publishAnswer: ServerDescription?
    private var transportSequence: UInt16 = 0
    private var roundTripTime: Duration?
    /// Our SRs' NTP middle 32 bits, for RTT from the server's RRs.
    private var sentReports: [UInt32: MediaTime] = [:]

    // Subscriber connection.
    private var subscriberICE: ICECredentials
    private var subscriberVersion: UInt64 = 1
    private var subscribeOffer: ServerDescription?
    private var receivers: [SSRC: RemoteTrackReceiver] = [:]
    /// RTX SSRC -> media SSRC of the receivers with RTX (`indexRTXStreams`).
    private var rtxStreams: [SSRC: SSRC] = [:]
    private var remoteTracksByMID: [String: RemoteMediaTrack] = [:]
    private var remoteAudioPaused = false
    /// The SSRC our RRs, NACKs and PLIs on the subscriber connection are sent from.
    private let receiverSSRC: SSRC
    /// Transport-wide congestion control on the subscriber connection
    /// (PROTOCOL.md 7): the offer's transport-cc extension ID, the arrival
    /// of each sequence number the server stamped, and when feedback is
    /// next due. The server's downlink estimate is built on this feedback.
    private var transportCCExtensionID: UInt8?
    private(set) var transportCC = TransportCCRecorder()  // internal: tests read its feedback
    private var nextTransportFeedback: MediaTime
    /// The SSRC of the newest media packet, named in the feedback as
    /// libwebrtc does (the feedback is about the whole transport).
    private var lastMediaSSRC = SSRC(0)
    private var transportFeedbackSent = 0

    private var housekeeping: RepeatedTask?
    private var lastReports: MediaTime
    private var droppedPackets = 0
    /// Where outgoing RTP/RTCP is written before protection. Sound: owned
    /// (freed in deinit), used only on the event loop, and the writers
    /// check its size (`.bufferTooSmall`).
    private let packetBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)
    /// Where a tick's RTCP to the server is batched (`RTCPBatch`): apart
    /// from `packetBuffer` because the tick hands frames to `onEvent`,
    /// whose handler may send a PLI (`requestKeyframe`) meanwhile.
    /// Sound in the same way as `packetBuffer`.
    private let rtcpBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: RTCPBatch.maximumCompoundSize, alignment: 16)

    /// RTP packets at most this big (header + payload) so the SRTP packet
    /// (plus a 16-byte tag) fits a 1200-byte datagram (PeerTransport's MTU).
    static let maximumRTPPacketSize = 1200 - 16
    /// Our RTP header with its extensions: 12 + 4 + mid (3 for a 2-digit
    /// mid) + abs-send-time (4) + transport-cc (3) + audio level (2, audio)
    /// or a one-letter simulcast RID (2, video), padded: 28 bytes at most.
    static let maximumHeaderSize = 28
    /// Interval of sender and receiver reports (RFC 3550 6.2 for a few streams: ~1 s).
    static let reportInterval: UInt64 = 1_000_000_000
    /// Transport-cc feedback every 50 ms, Chrome's shortest interval (it
    /// sends every 50-100 ms): at 2.5 Mbit/s that is ~12 packets a feedback,
    /// and the sender's delay trend sees a change within a few of them.
    /// The 20 ms housekeeping tick sends it on alternate 40 and 60 ms.
    static let transportFeedbackInterval: UInt64 = 50_000_000
    /// At most one keyframe request per remote track in this long.
    static let keyframeRequestInterval: UInt64 = 300_000_000
    /// RFC 6464's V bit: voice when the level is above -50 dBov.
    static let voiceActivityThreshold: UInt8 = 50

    init(eventLoop: any EventLoop, configuration: MediaEngineConfiguration,
         onEvent: @escaping (MediaEngineEvent) -> Void) throws {
        eventLoop.preconditionInEventLoop()
        self.eventLoop = eventLoop
        self.configuration = configuration
        self.onEvent = onEvent
        if let given = configuration.certificate {
            certificate = given
        } else {
            do {
                certificate = try DTLSCertificate.generate()
            } catch {
                throw MediaEngineError.mediaConnection("cannot make a DTLS certificate: \(error.message)")
            }
        }
        publisherICE = .random(using: &generator)
        subscriberICE = .random(using: &generator)
        cname = Self.token(16, using: &generator)
        streamID = Self.token(16, using: &generator)
        sessionID = String(UInt64.random(in: 1...UInt64(Int64.max), using: &generator))
        receiverSSRC = SSRC(UInt32.random(in: 1...UInt32.max, using: &generator))
        publisher = EnginePeerConnection(
            role: .publisher, eventLoop: eventLoop, certificate: certificate, configuration: configuration)
        subscriber = EnginePeerConnection(
            role: .subscriber, eventLoop: eventLoop, certificate: certificate, configuration: configuration)
        lastReports = EngineClock.now()
        nextTransportFeedback = lastReports
        publisher.onRTCP = { [unowned self] buffer, length in
            self.handlePublisherRTCP(UnsafeRawBufferPointer(rebasing: buffer[0..<length]))
        }
        // The server sends no media on the publisher connection.
        publisher.onRTP = { [unowned self] _, _ in self.droppedPackets += 1 }
        publisher.onStateChange = { [unowned self] state in
            self.onEvent(.connectionStateChanged(.publisher, state))
            // A subscriber can decode nothing before a keyframe: ask for one
            // as soon as media can flow.
            guard state == .connected else { return }
            for layers in self.senders.values.sorted(by: { $0[0].mid < $1[0].mid }) where layers[0].track.kind == .video {
                for layer in layers.indices { self.onEvent(.keyframeRequested(trackName: layers[0].track.name, layer: layer)) }
            }
        }
        subscriber.onRTP = { [unowned self] buffer, length in
            self.handleSubscriberRTP(UnsafeRawBufferPointer(rebasing: buffer[0..<length]))
        }
        subscriber.onRTCP = { [unowned self] buffer, length in
            self.handleSubscriberRTCP(UnsafeRawBufferPointer(rebasing: buffer[0..<length]))
        }
        subscriber.onStateChange = { [unowned self] state in
            self.onEvent(.connectionStateChanged(.subscriber, state))
        }
        publisher.bind()
        subscriber.bind()
        housekeeping = eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(20), delay: .milliseconds(20)) {
            [weak self] _ in self?.tick()
        }
    }

    deinit {
        packetBuffer.deallocate()
        rtcpBuffer.deallocate()
    }

    // MARK: Publisher: negotiation

    /// All current publications. A track that stays keeps its m-line and
    /// SSRC; a removed one's m-line stays, inactive; a new one gets a new
    /// m-line at the end (inactive m-lines are not reused).
    func setLocalTracks(_ tracks: [LocalMediaTrack]) {
        eventLoop.preconditionInEventLoop()
        let names = Set(tracks.map(\.name))
        for index in slots.indices {
            if let name = slots[index].trackName, !names.contains(name) {
                slots[index].trackName = nil
                for removed in senders.removeValue(forKey: name) ?? [] { senderNames[removed.ssrc] = nil }
            }
        }
        for track in tracks {
            if let existing = senders[track.name] {
                senders[track.name] = existing.map { sender in
                    var sender = sender
                    sender.track.enabled = track.enabled
                    return sender
                }
                continue
            }
            let mid = String(nextMID)
            nextMID += 1
            // A simulcast track: one SSRC per layer, each tagged with its RID.
            let rids: [String?] = track.kind == .video && !track.rids.isEmpty ? track.rids : [nil]
            var layers: [LocalTrackSender] = []
            for (index, rid) in rids.enumerated() {
                var ssrc = SSRC(UInt32.random(in: 1...UInt32.max, using: &generator))
                while senderNames[ssrc] != nil || ssrc == receiverSSRC {
                    ssrc = SSRC(UInt32.random(in: 1...UInt32.max, using: &generator))
                }
                layers.append(LocalTrackSender(track: track, mid: mid, ssrc: ssrc, rid: rid, using: &generator))
                senderNames[ssrc] = (track.name, index)
            }
            slots.append(
                PublishOfferWriter.Slot(
                    mid: mid, kind: track.kind, trackName: track.name, ssrc: layers[0].ssrc,
                    layers: rids.compactMap { $0 }.enumerated().map { .init(rid: $0.element, ssrc: layers[$0.offset].ssrc) }))
            senders[track.name] = layers
        }
    }

    /// A local track's SSRCs: one, or one per simulcast layer, lowest first.
    func ssrcs(trackName: String) -> [SSRC] {
        eventLoop.preconditionInEventLoop()
        return senders[trackName]?.map(\.ssrc) ?? []
    }

    /// The RIDs of a simulcast track that the publish answer accepted
    /// (`a=simulcast:recv`), lowest first; nil for a one-layer track or
    /// before the answer. An answer that drops simulcast (RFC 8853 5.3)
    /// leaves one stream: this SDK then sends only the top layer, the
    /// camera's full picture, where Chromium would keep the first encoding
    /// (1/4 scale here): a server without simulcast should not get a
    /// quarter of the picture.
    func acceptedLayers(trackName: String) -> [String]? {
        eventLoop.preconditionInEventLoop()
        guard let layers = senders[trackName], layers.count > 1, let media = negotiatedMedia(mid: layers[0].mid) else {
            return nil
        }
        return Self.acceptedLayers(offered: layers.compactMap(\.rid), answer: media.description.simulcast)
    }

    /// The offered RIDs an answer's `a=simulcast:recv` keeps (a paused
    /// `~rid` is not kept), in our order; without the attribute, the top one.
    static func acceptedLayers(offered: [String], answer: SDPSimulcast?) -> [String] {
        let accepted = answer?.recv.compactMap { $0.first(where: { !$0.paused })?.rid } ?? []
        guard !accepted.isEmpty else { return offered.last.map { [$0] } ?? [] }
        return offered.filter(accepted.contains)
    }

    /// The offer for the `publish` message; `iceRestart` makes new local
    /// ICE credentials (RFC 8445 section 9).
    func makePublishOffer(iceRestart: Bool) -> PublishOfferDescription {
        eventLoop.preconditionInEventLoop()
        if iceRestart { publisherICE = .random(using: &generator) }
        let writer = PublishOfferWriter(
            ice: publisherICE, fingerprint: certificate.fingerprint, cname: cname, streamID: streamID,
            sessionID: sessionID, sessionVersion: publishVersion)
        publishVersion += 1
        let tracks = slots.compactMap { slot -> PublishOfferDescription.Track? in
            guard let name = slot.trackName, let sender = senders[name]?.first else { return nil }
            return PublishOfferDescription.Track(mid: slot.mid, name: name, kind: slot.kind, enabled: sender.track.enabled)
        }
        return PublishOfferDescription(sdp: writer.description(slots: slots).text, tracks: tracks)
    }

    /// Applies the server's `publishAnswer`; starts ICE and DTLS on the
    /// first one and restarts ICE when the credentials changed. Throws
    /// 53402 for an answer that does not fit the offer.
    func applyPublishAnswer(_ sdp: String) throws {
        eventLoop.preconditionInEventLoop()
        guard !isClosed else { throw MediaEngineError.remoteDescription("the media engine is closed") }
        let answer = try ServerDescription(parsing: sdp)
        for slot in slots where answer.media.first(where: { $0.mid == slot.mid }) == nil {
            throw MediaEngineError.remoteDescription("publish answer has no m-line for mid '\(slot.mid)'")
        }
        if answer.setup == .active {
            throw MediaEngineError.remoteDescription("publish answer has a=setup:active; the server must be the DTLS server")
        }
        let paths = try answer.paths(configuration)
        publishAnswer = answer
        try publisher.start(localICE: publisherICE, remote: answer.remote, paths: paths)
    }

    // MARK: Publisher: media

    /// Disabled: send no media (RTCP continues).
    func setLocalTrackEnabled(name: String, _ enabled: Bool) {
        eventLoop.preconditionInEventLoop()
        guard let layers = senders[name] else { return }
        senders[name] = layers.map { sender in
            var sender = sender
            sender.track.enabled = enabled
            return sender
        }
    }

    /// Packetizes and sends one VP8 frame (RFC 7741, 15-bit picture ID,
    /// marker on the last packet, 90 kHz timestamp from `captureTime`) on
    /// `layer`'s SSRC (0 for a one-layer track; simulcast layers lowest
    /// first). Dropped while the track is disabled or the connection not up.
    func sendVideoFrame(trackName: String, layer: Int = 0, data: [UInt8], isKeyframe: Bool, captureTime: MediaTime) {
        eventLoop.preconditionInEventLoop()
        guard let layers = senders[trackName], layers.indices.contains(layer) else { return }
        var sender = layers[layer]
        guard sender.track.kind == .video, sender.track.enabled, publisher.isConnected,
            let media = negotiatedMedia(mid: sender.mid)
        else { return }
        let timestamp = sender.rtpTimestamp(captureTime)
        let payloads = sender.packetizer.packetize(
            data, maximumPayloadSize: Self.maximumRTPPacketSize - Self.maximumHeaderSize)
        for (index, payload) in payloads.enumerated() {
            let header = RTPHeader(
                marker: index == payloads.count - 1, payloadType: media.payloadType ?? PublishOfferWriter.vp8PayloadType,
                sequenceNumber: sender.nextSequenceNumber(), timestamp: timestamp, ssrc: sender.ssrc,
                extensions: extensions(media.extensions, mid: sender.mid, rid: sender.rid, audioLevel: nil))
            guard let packet = write(header, payload) else { continue }
            sender.history.store(sequence: header.sequenceNumber, packet: Array(packet))
            if publisher.sendRTP(packet) {
                sender.statistics.packetsSent += 1
                sender.statistics.bytesSent += payload.count
            }
        }
        sender.statistics.framesSent += 1
        senders[trackName]?[layer] = sender
    }

    /// Sends one Opus packet (20 ms, 48 kHz timestamp from `captureTime`)
    /// with the ssrc-audio-level extension (RFC 6464: 0 loudest ... 127
    /// silence; V set above -50 dBov).
    func sendAudioFrame(trackName: String, data: [UInt8], audioLevel: UInt8, captureTime: MediaTime) {
        eventLoop.preconditionInEventLoop()
        guard var sender = senders[trackName]?.first, sender.track.kind == .audio, sender.track.enabled,
            publisher.isConnected, let media = negotiatedMedia(mid: sender.mid)
        else { return }
        let level = min(audioLevel, 127)
        let header = RTPHeader(
            payloadType: media.payloadType ?? PublishOfferWriter.opusPayloadType,
            sequenceNumber: sender.nextSequenceNumber(), timestamp: sender.rtpTimestamp(captureTime), ssrc: sender.ssrc,
            extensions: extensions(
                media.extensions, mid: sender.mid, rid: nil, audioLevel: (level < Self.voiceActivityThreshold ? 0x80 : 0) | level))
        if let packet = write(header, data), publisher.sendRTP(packet) {
            sender.statistics.packetsSent += 1
            sender.statistics.bytesSent += data.count
        }
        sender.statistics.framesSent += 1
        senders[trackName]?[0] = sender
    }

    private func negotiatedMedia(mid: String) -> ServerDescription.Media? {
        guard let media = publishAnswer?.media.first(where: { $0.mid == mid }), !media.isRejected,
            media.direction.receives
        else { return nil }
        return media
    }

    private func extensions(_ ids: NegotiatedHeaderExtensions, mid: String, rid: String?, audioLevel: UInt8?)
        -> [RTPHeader.Extension]
    {
        defer { if ids.transportCC != nil { transportSequence &+= 1 } }
        return Self.headerExtensions(
            ids, mid: mid, rid: rid, audioLevel: audioLevel, absSendTime: EngineClock.absSendTime(ntp: EngineClock.ntpNow()),
            transportSequence: transportSequence)
    }

    /// The header extensions of one outgoing packet: MID always, and a
    /// simulcast layer's RID (RFC 8852) on every packet of its SSRC.
    /// Chromium sends the RID only until the receiver has seen it; always
    /// costs 3 bytes a packet and lets a server that lost its state (or
    /// joined a stream late) bind the SSRC again from any packet.
    static func headerExtensions(
        _ ids: NegotiatedHeaderExtensions, mid: String, rid: String?, audioLevel: UInt8?, absSendTime: [UInt8],
        transportSequence: UInt16
    ) -> [RTPHeader.Extension] {
        var list: [RTPHeader.Extension] = []
        if let id = ids.mid { list.append(.init(id: id, value: Array(mid.utf8))) }
        if let id = ids.rid, let rid { list.append(.init(id: id, value: Array(rid.utf8))) }
        if let id = ids.audioLevel, let audioLevel { list.append(.init(id: id, value: [audioLevel])) }
        if let id = ids.absSendTime { list.append(.init(id: id, value: absSendTime)) }
        if let id = ids.transportCC {
            list.append(.init(id: id, value: [UInt8(transportSequence >> 8), UInt8(transportSequence & 0xFF)]))
        }
        return list
    }

    /// Writes a plaintext RTP packet into `packetBuffer`.
    private func write(_ header: RTPHeader, _ payload: [UInt8]) -> UnsafeRawBufferPointer? {
        let length = payload.withUnsafeBytes { bytes in
            try? RTPHeader.writePacket(header, payload: bytes, to: packetBuffer)
        }
        guard let length else { return nil }
        return UnsafeRawBufferPointer(rebasing: packetBuffer[0..<length])
    }

    // MARK: Publisher: RTCP from the server

    private func handlePublisherRTCP(_ bytes: UnsafeRawBufferPointer) {
        guard let compound = try? RTCPCompoundPacket(validating: bytes) else {
            droppedPackets += 1
            return
        }
        var keyframeRequests: [SSRC] = []
        let now = EngineClock.now()
        for packet in compound {
            switch try? packet.typed() {
            case .receiverReport(let report)?:
                for block in report.reports { updateRoundTripTime(ReceptionReport(block), now: now) }
            case .senderReport(let report)?:
                for block in report.reports { updateRoundTripTime(ReceptionReport(block), now: now) }
            case .genericNACK(let nack)?:
                // Each layer has its own SSRC and history: a NACK repairs that layer only.
                guard let (name, layer) = senderNames[nack.mediaSSRC] else { continue }
                for sequence in nack.lostSequenceNumbers { retransmit(name: name, layer: layer, sequence: sequence) }
            case .pictureLossIndication(let pli)?:
                guard let (name, layer) = senderNames[pli.mediaSSRC], senders[name]?[layer].track.kind == .video else {
                    continue
                }
                senders[name]?[layer].statistics.keyframeRequestsReceived += 1
                keyframeRequests.append(pli.mediaSSRC)
            case .fullIntraRequest(let fir)?:
                for entry in fir.entries {
                    guard let (name, layer) = senderNames[entry.ssrc], senders[name]?[layer].track.kind == .video,
                        senders[name]?[layer].lastFIRSequence != entry.sequenceNumber
                    else { continue }
                    senders[name]?[layer].lastFIRSequence = entry.sequenceNumber
                    senders[name]?[layer].statistics.keyframeRequestsReceived += 1
                    keyframeRequests.append(entry.ssrc)
                }
            case nil:
                droppedPackets += 1
            default:
                break
            }
        }
        var seen = Set<SSRC>()
        for ssrc in keyframeRequests where seen.insert(ssrc).inserted {
            guard let (name, layer) = senderNames[ssrc] else { continue }
            onEvent(.keyframeRequested(trackName: name, layer: layer))
        }
    }

    private func retransmit(name: String, layer: Int, sequence: UInt16) {
        senders[name]?[layer].statistics.nacksReceived += 1
        guard let stored = senders[name]?[layer].history.packet(sequence: sequence) else { return }
        let sent = stored.withUnsafeBytes { publisher.sendRTP($0) }
        if sent { senders[name]?[layer].statistics.retransmissionsSent += 1 }
    }

    /// RFC 3550 6.4.1: RTT = arrival - LSR - DLSR, in 1/65536 s.
    private func updateRoundTripTime(_ block: ReceptionReport, now: MediaTime) {
        guard senderNames[block.ssrc] != nil, block.lastSR != 0, sentReports[block.lastSR] != nil else { return }
        let arrival = UInt32(truncatingIfNeeded: EngineClock.ntpNow() >> 16)
        let rtt = arrival &- block.lastSR &- block.delaySinceLastSR
        guard rtt < 65536 * 10 else { return }  // more than 10 s: a stale or bogus block
        roundTripTime = .nanoseconds(Int64(rtt) * 1_000_000_000 / 65536)
    }

    // MARK: Subscriber: negotiation

    /// Answers the server's `subscribeOffer`; `tracks` says whose track each
    /// m-line carries. An offer with new ICE credentials is an ICE restart
    /// (the answer then has new ones too). Throws 53402.
    func answerSubscribeOffer(_ sdp: String, tracks: [RemoteMediaTrack]) throws -> String {
        eventLoop.preconditionInEventLoop()
        guard !isClosed else { throw MediaEngineError.remoteDescription("the media engine is closed") }
        let offer = try ServerDescription(parsing: sdp)
        if offer.setup == .active || offer.setup == .holdconn {
            throw MediaEngineError.remoteDescription("subscriber offer has a=setup:\(offer.setup!.rawValue); expected actpass or passive")
        }
        if let previous = subscribeOffer, previous.remote.ice != offer.remote.ice {
            subscriberICE = .random(using: &generator)
        }
        // Another server (the room moved, PROTOCOL.md 8): its streams and
        // transport-wide sequence numbers start anew, so nothing learned
        // from the old one applies (a kept receiver would read the new
        // sequence numbers as a gap and NACK it).
        let otherServer = subscribeOffer.map { !$0.remote.isSameServer(as: offer.remote) } ?? false
        if otherServer {
            receivers = [:]
            rtxStreams = [:]
            transportCC = TransportCCRecorder()
        }
        let paths = try offer.paths(configuration)
        subscribeOffer = offer
        // One ID for the whole BUNDLE transport (RFC 8843 9.1): any
        // m-line's, as long as one offers the feedback too.
        transportCCExtensionID = offer.media.first { media in
            guard media.extensions.transportCC != nil, let pt = media.payloadType else { return false }
            return media.description.rtcpFeedback(for: pt).contains { $0.type == "transport-cc" }
        }?.extensions.transportCC
        remoteTracksByMID = Dictionary(tracks.map { ($0.mid, $0) }, uniquingKeysWith: { $1 })
        // Receivers: by the offer's a=ssrc for every sending m-line with a track.
        var kept: [SSRC: RemoteTrackReceiver] = [:]
        for media in offer.media where media.direction.sends {
            guard let track = remoteTracksByMID[media.mid], let ssrc = media.ssrc else { continue }
            var receiver = receivers[ssrc].flatMap { $0.track.trackSid == track.trackSid ? $0 : nil }
                ?? RemoteTrackReceiver(track: track, ssrc: ssrc, payloadType: media.payloadType)
            receiver.payloadType = media.payloadType
            receiver.rtxPayloadType = media.rtxPayloadType
            receiver.rtxSSRC = media.rtxPayloadType == nil ? nil : media.rtxSSRC ?? receiver.rtxSSRC
            kept[ssrc] = receiver
        }
        receivers = kept
        indexRTXStreams()
        let writer = SubscribeAnswerWriter(
            ice: subscriberICE, fingerprint: certificate.fingerprint, sessionID: sessionID, sessionVersion: subscriberVersion)
        subscriberVersion += 1
        let answer = writer.answer(to: offer).text
        try subscriber.start(localICE: subscriberICE, remote: offer.remote, paths: paths)
        return answer
    }

    /// Asks the server for a keyframe of a remote video track (PLI), at
    /// most once per 300 ms.
    func requestKeyframe(trackSid: String) {
        eventLoop.preconditionInEventLoop()
        guard let ssrc = receivers.first(where: { $0.value.track.trackSid == trackSid })?.key,
            let pli = keyframeRequest(ssrc: ssrc, now: EngineClock.now())
        else { return }
        // At once, not at the next tick: behind an empty RR (RFC 4585 3.1).
        var rtcp = RTCPBatch(buffer: packetBuffer, reporter: receiverSSRC) { [subscriber] in subscriber.sendRTCP($0) }
        rtcp.append(pli)
        rtcp.flush()
    }

    /// Paused: remote audio packets are counted but not emitted.
    func setRemoteAudioPaused(_ paused: Bool) {
        eventLoop.preconditionInEventLoop()
        remoteAudioPaused = paused
    }

    // MARK: Subscriber: media in

    /// A decrypted RTP packet on the subscriber connection. Internal, not
    /// private, so tests can hand it packets without a network.
    func handleSubscriberRTP(_ bytes: UnsafeRawBufferPointer) {
        guard let view = try? RTPPacketView(validating: bytes) else {
            droppedPackets += 1
            return
        }
        let ssrc = view.ssrc
        let now = EngineClock.now()
        // Every packet counts for the server's estimate, whatever becomes of
        // it here: RTX probes exist only for this.
        if let id = transportCCExtensionID, let value = view.extensionValue(id: id), value.count == 2 {
            transportCC.record(UInt16(value[0]) << 8 | UInt16(value[1]), at: now)
            lastMediaSSRC = ssrc
        }
        if receivers[ssrc] == nil, rtxStreams[ssrc] == nil, !learnStream(view) {
            droppedPackets += 1
            return
        }
        if let mediaSSRC = rtxStreams[ssrc] {
            receiveRTX(view, mediaSSRC: mediaSSRC, now: now)
            return
        }
        guard let receiver = receivers[ssrc], receiver.payloadType == nil || receiver.payloadType == view.payloadType
        else {
            droppedPackets += 1
            return
        }
        let level = receiver.track.kind == .audio
            ? receiver.audioLevelID(in: subscribeOffer).flatMap { view.extensionValue(id: $0)?.first } : nil
        deliver(
            ssrc: ssrc, sequenceNumber: view.sequenceNumber, timestamp: view.timestamp, marker: view.marker,
            payload: view.payload, audioLevel: level, retransmitted: false, now: now)
    }

    /// An RTX packet (RFC 4588) of the video stream `mediaSSRC`: a probe is
    /// dropped (transport-cc has it already), a repair goes on as the
    /// original packet: its SSRC and payload type, the OSN as sequence
    /// number, the payload after the OSN (RFC 4588 section 4).
    private func receiveRTX(_ view: RTPPacketView, mediaSSRC: SSRC, now: MediaTime) {
        guard let receiver = receivers[mediaSSRC], receiver.rtxPayloadType == view.payloadType else {
            droppedPackets += 1
            return
        }
        switch RTXPayload(view.payload) {
        case .probe:
            receivers[mediaSSRC]?.statistics.paddingPacketsReceived += 1
        case .malformed:
            droppedPackets += 1
        case .repair(let originalSequenceNumber):
            receivers[mediaSSRC]?.statistics.retransmissionsReceived += 1
            deliver(
                ssrc: mediaSSRC, sequenceNumber: originalSequenceNumber, timestamp: view.timestamp, marker: view.marker,
                payload: UnsafeRawBufferPointer(rebasing: view.payload.dropFirst(RTXPayload.headerSize)), audioLevel: nil,
                retransmitted: true, now: now)
        }
    }

    /// A media packet of the stream `ssrc`, first sent or repaired: into
    /// the statistics, then out as an audio frame or into the VP8 assembler.
    private func deliver(
        ssrc: SSRC, sequenceNumber: UInt16, timestamp: UInt32, marker: Bool, payload: UnsafeRawBufferPointer,
        audioLevel: UInt8?, retransmitted: Bool, now: MediaTime
    ) {
        guard var receiver = receivers[ssrc] else { return }
        receiver.reception.record(
            extendedSequence: receiver.unwrapper.unwrap(sequenceNumber), timestamp: timestamp,
            arrival: now.nanoseconds, retransmitted: retransmitted)
        receiver.statistics.packetsReceived += 1
        receiver.statistics.bytesReceived += payload.count
        let trackSid = receiver.track.trackSid
        switch receiver.track.kind {
        case .audio:
            receiver.statistics.framesReceived += 1
            receivers[ssrc] = receiver
            guard !remoteAudioPaused else { return }
            onEvent(.remoteAudioFrame(
                trackSid: trackSid,
                RemoteAudioFrame(data: Array(payload), rtpTimestamp: timestamp, arrival: now, audioLevel: audioLevel.map { $0 & 0x7F })))
        case .video:
            let frames = receiver.assembler.insert(
                sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker, payload: payload, now: now)
            receiver.statistics.framesReceived += frames.count
            receivers[ssrc] = receiver
            for frame in frames { onEvent(.remoteVideoFrame(trackSid: trackSid, frame)) }
        }
    }

    /// An SSRC the offer did not list: find its track by the mid extension.
    /// With the m-line's RTX payload type it is that track's RTX stream
    /// (once its media stream is known), else the track's new media stream.
    private func learnStream(_ view: RTPPacketView) -> Bool {
        guard let offer = subscribeOffer else { return false }
        for media in offer.media {
            guard let id = media.extensions.mid, let value = view.extensionValue(id: id),
                let mid = String(validating: value, as: UTF8.self), let track = remoteTracksByMID[mid],
                let described = offer.media.first(where: { $0.mid == mid }), described.direction.sends
            else { continue }
            if let rtx = described.rtxPayloadType, rtx == view.payloadType {
                guard let mediaSSRC = receivers.first(where: { $0.value.track.trackSid == track.trackSid })?.key else {
                    return false
                }
                receivers[mediaSSRC]?.rtxSSRC = view.ssrc
                indexRTXStreams()
                return true
            }
            receivers = receivers.filter { $0.value.track.trackSid != track.trackSid }
            var receiver = RemoteTrackReceiver(track: track, ssrc: view.ssrc, payloadType: described.payloadType)
            receiver.rtxPayloadType = described.rtxPayloadType
            receivers[view.ssrc] = receiver
            indexRTXStreams()
            return true
        }
        return false
    }

    /// Rebuilds `rtxStreams` from the receivers.
    private func indexRTXStreams() {
        rtxStreams = [:]
        for (ssrc, receiver) in receivers {
            if let rtx = receiver.rtxSSRC, receivers[rtx] == nil { rtxStreams[rtx] = ssrc }
        }
    }

    private func handleSubscriberRTCP(_ bytes: UnsafeRawBufferPointer) {
        guard let compound = try? RTCPCompoundPacket(validating: bytes) else {
            droppedPackets += 1
            return
        }
        let now = EngineClock.now()
        for packet in compound {
            switch try? packet.typed() {
            case .senderReport(let report)?:
                receivers[report.ssrc]?.reception.recordSenderReport(ntpTimestamp: report.ntpTimestamp, arrival: now.nanoseconds)
            case nil:
                droppedPackets += 1
            default:
                break
            }
        }
    }

    // MARK: Timers

    /// Every 20 ms: the publisher's SRs when due; on the subscriber
    /// connection one batch of what is due (RRs, NACKs, PLIs, transport-cc
    /// feedback), reports first.
    private func tick() {
        guard !isClosed else { return }
        let now = EngineClock.now()
        var rtcp = RTCPBatch(buffer: rtcpBuffer, reporter: receiverSSRC) { [subscriber] in subscriber.sendRTCP($0) }
        if now.nanoseconds(since: lastReports) >= Self.reportInterval {
            lastReports = now
            sendSenderReports(now: now)
            appendReceiverReports(now: now, to: &rtcp)
        }
        repairRemoteVideo(now: now, rtcp: &rtcp)
        appendTransportFeedback(now: now, to: &rtcp)
        rtcp.flush()
    }

    /// The arrivals not yet reported, when feedback is due (500 packets a
    /// feedback, four at most: more than 50 ms of anything the server sends).
    private func appendTransportFeedback(now: MediaTime, to rtcp: inout RTCPBatch) {
        guard now >= nextTransportFeedback else { return }
        nextTransportFeedback = nextTransportFeedback.adding(nanoseconds: Self.transportFeedbackInterval)
        if nextTransportFeedback <= now { nextTransportFeedback = now.adding(nanoseconds: Self.transportFeedbackInterval) }
        guard subscriber.isConnected else { return }
        var rounds = 0
        while rounds < 4, let feedback = transportCC.nextFeedback(senderSSRC: receiverSSRC, mediaSSRC: lastMediaSSRC) {
            rounds += 1
            rtcp.append(feedback)
            transportFeedbackSent += 1
        }
    }

    /// Per remote video track: frames a stall released, NACKs due, and a
    /// keyframe request when a frame was given up.
    private func repairRemoteVideo(now: MediaTime, rtcp: inout RTCPBatch) {
        for ssrc in receivers.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard var receiver = receivers[ssrc], receiver.track.kind == .video else { continue }
            let frames = receiver.assembler.poll(now: now)
            receiver.statistics.framesReceived += frames.count
            let due = receiver.nacks.due(missing: receiver.assembler.missingSequenceNumbers, now: now)
            receiver.statistics.nacksSent += due.count
            let skipped = receiver.assembler.skips > receiver.handledSkips
            receiver.handledSkips = receiver.assembler.skips
            receivers[ssrc] = receiver
            if !due.isEmpty {
                rtcp.append(GenericNACK(senderSSRC: receiverSSRC, mediaSSRC: ssrc, lostSequenceNumbers: due))
            }
            for frame in frames { onEvent(.remoteVideoFrame(trackSid: receiver.track.trackSid, frame)) }
            if skipped, let pli = keyframeRequest(ssrc: ssrc, now: now) { rtcp.append(pli) }
        }
    }

    /// A PLI for a remote video track unless one went out in the last 300 ms.
    private func keyframeRequest(ssrc: SSRC, now: MediaTime) -> PictureLossIndication? {
        guard var receiver = receivers[ssrc], receiver.track.kind == .video else { return nil }
        if let last = receiver.lastKeyframeRequest, now.nanoseconds(since: last) < Self.keyframeRequestInterval { return nil }
        receiver.lastKeyframeRequest = now
        receiver.statistics.keyframeRequestsSent += 1
        receivers[ssrc] = receiver
        return PictureLossIndication(senderSSRC: receiverSSRC, mediaSSRC: ssrc)
    }

    private func sendSenderReports(now: MediaTime) {
        guard publisher.isConnected, !senders.isEmpty else { return }
        let ntp = EngineClock.ntpNow()
        var writer = RTCPCompoundWriter(buffer: packetBuffer)
        for sender in senders.values.flatMap({ $0 }).sorted(by: { ($0.mid, $0.ssrc.rawValue) < ($1.mid, $1.ssrc.rawValue) }) {
            let report = SenderReport(
                ssrc: sender.ssrc, ntpTimestamp: ntp, rtpTimestamp: sender.rtpTimestamp(now),
                packetCount: UInt32(truncatingIfNeeded: sender.statistics.packetsSent),
                octetCount: UInt32(truncatingIfNeeded: sender.statistics.bytesSent))
            guard (try? writer.append(report)) != nil else { break }
        }
        if let first = senders.values.compactMap(\.first).min(by: { $0.mid < $1.mid }) {
            try? writer.append(SourceDescription(source: first.ssrc, cname: cname))
        }
        sentReports[UInt32(truncatingIfNeeded: ntp >> 16)] = now
        if sentReports.count > 8 {
            sentReports = sentReports.filter { now.nanoseconds(since: $0.value) < 10 * Self.reportInterval }
        }
        publisher.sendRTCP(writer.written)
    }

    private func appendReceiverReports(now: MediaTime, to rtcp: inout RTCPBatch) {
        guard subscriber.isConnected, !receivers.isEmpty else { return }
        var blocks: [ReceptionReport] = []
        for ssrc in receivers.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard var receiver = receivers[ssrc], let block = receiver.reception.takeReport(ssrc: ssrc, now: now.nanoseconds) else {
                continue
            }
            receivers[ssrc] = receiver
            blocks.append(block)
        }
        // 31 blocks per RR (5-bit RC); a batch that fills goes out and the
        // next RR starts the next compound.
        for chunk in stride(from: 0, to: max(blocks.count, 1), by: 31) {
            let slice = Array(blocks[min(chunk, blocks.count)..<min(chunk + 31, blocks.count)])
            rtcp.append(ReceiverReport(ssrc: receiverSSRC, reports: slice))
        }
        rtcp.append(SourceDescription(source: receiverSSRC, cname: cname))
    }

    // MARK: Statistics, closing

    func statistics() -> MediaEngineStatistics {
        eventLoop.preconditionInEventLoop()
        let remote = receivers.values.sorted(by: { $0.track.mid < $1.track.mid }).map { receiver in
            var statistics = receiver.statistics
            // Duplicates count as received here (A.3 lets the count go below zero); the API reports none lost.
            statistics.packetsLost = max(0, Int(receiver.reception.cumulativeLost))
            statistics.jitter = receiver.reception.jitterSeconds * 1000
            return statistics
        }
        // A simulcast track's layers add up to one track's figures (the
        // first layer's SSRC names it).
        let local = senders.values.sorted(by: { $0[0].mid < $1[0].mid }).compactMap { layers -> MediaEngineStatistics.LocalTrack? in
            guard var total = layers.first?.statistics else { return nil }
            for layer in layers.dropFirst() {
                total.packetsSent += layer.statistics.packetsSent
                total.bytesSent += layer.statistics.bytesSent
                total.framesSent += layer.statistics.framesSent
                total.nacksReceived += layer.statistics.nacksReceived
                total.retransmissionsSent += layer.statistics.retransmissionsSent
                total.keyframeRequestsReceived += layer.statistics.keyframeRequestsReceived
            }
            return total
        }
        return MediaEngineStatistics(
            publisherState: publisher.state, subscriberState: subscriber.state, localTracks: local,
            remoteTracks: remote, roundTripTime: roundTripTime,
            droppedDatagrams: droppedPackets + publisher.droppedDatagrams + subscriber.droppedDatagrams,
            droppedOutgoingFrames: publisher.droppedFrames + subscriber.droppedFrames,
            transportFeedbackSent: transportFeedbackSent)
    }

    /// The UDP port of a connection's socket, once bound.
    func localPort(of role: MediaConnectionRole) -> Int? {
        eventLoop.preconditionInEventLoop()
        return role == .publisher ? publisher.localPort : subscriber.localPort
    }

    /// The UDP socket's channel of a connection (tests close it, as NIO
    /// does after a send error it cannot recover from).
    func socketChannel(of role: MediaConnectionRole) -> (any Channel)? {
        eventLoop.preconditionInEventLoop()
        return role == .publisher ? publisher.socketChannel : subscriber.socketChannel
    }

    /// Closes both connections (DTLS close_notify, sockets) and stops the timers.
    func close() {
        eventLoop.preconditionInEventLoop()
        guard !isClosed else { return }
        isClosed = true
        housekeeping?.cancel()
        housekeeping = nil
        publisher.close()
        subscriber.close()
    }

    // MARK: Helpers

    private static func token<G: RandomNumberGenerator>(_ count: Int, using generator: inout G) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }
}

extension RemoteTrackReceiver {
    /// The audio-level extension ID of this track's m-line.
    func audioLevelID(in offer: ServerDescription?) -> UInt8? {
        offer?.media.first(where: { $0.mid == track.mid })?.extensions.audioLevel
    }
}
