import Packets
import SDP

/// The server's offer on a participant's subscriber connection, where the
/// server always offers (PROTOCOL.md sections 3.4, 5), and the parser of
/// the client's answer to it.
///
/// Every slot becomes one m-line, in slot order, all in one BUNDLE group
/// (none is ever rejected by the server, so the first slot carries the
/// transport even when inactive). Fixed numbers, the same on every m-line:
/// Opus on PT 111 (`minptime=10;useinbandfec=1`, transport-cc feedback),
/// VP8 on PT 96 (nack, nack pli, ccm fir, goog-remb, transport-cc) with
/// RTX on 97 when the slot's track has an RTX SSRC (and on inactive video
/// slots, so a reused slot keeps its format list); extensions 1 audio
/// level (audio only), 2 abs-send-time, 3 transport-cc, 4 mid.
///
/// An ICE restart is an offer built with a new `transport.ice`.
public struct SubscriberOffer: Hashable, Sendable {
    public static let opusPayloadType: UInt8 = 111
    public static let vp8PayloadType: UInt8 = 96
    public static let rtxPayloadType: UInt8 = 97

    public var slots: [SubscriberOfferSlot]
    public var transport: NegotiationTransport
    /// The offer; send `sdp.text` in `subscribeOffer`.
    public var sdp: SessionDescription

    /// Builds the offer; nil for zero slots: a subscriber with nothing to
    /// receive is not sent an offer (PROTOCOL.md 3.1: a publish-only client
    /// never gets one). Slots are never removed, so once a connection has an
    /// m-line every later offer has at least one.
    ///
    /// - Parameters:
    ///   - sessionID, sessionVersion: the `o=` line; keep the ID per
    ///     connection and increase the version with every offer.
    /// - Throws: 53401 (ServerLocalDescFailed) for slots the server should
    ///   never make: an empty mid or one with a space, two slots with one
    ///   mid, a kind other than audio or video.
    public init?(
        slots: [SubscriberOfferSlot], transport: NegotiationTransport, sessionID: String, sessionVersion: UInt64
    ) throws(NegotiationError) {
        guard !slots.isEmpty else { return nil }
        var seen = Set<String>()
        for slot in slots {
            guard !slot.mid.isEmpty, !slot.mid.contains(" "), seen.insert(slot.mid).inserted else {
                throw .serverLocalDescFailed("subscriber offer: bad or duplicate mid '\(slot.mid)'")
            }
            guard slot.kind == .audio || slot.kind == .video else {
                throw .serverLocalDescFailed("subscriber offer: mid '\(slot.mid)' is \(slot.kind), not audio or video")
            }
        }
        self.slots = slots
        self.transport = transport
        let attributes: [SDPAttribute] = [
            .iceLite, .group(.bundle(slots.map(\.mid))),
            .msidSemantic(SDPMSIDSemantic(semantic: "WMS", identifiers: ["*"])),
        ]
        sdp = SessionDescription(
            origin: SDPOrigin(sessionID: sessionID, sessionVersion: sessionVersion), attributes: attributes,
            media: slots.map { Self.section($0, transport: transport) })
    }

    /// The offer text (CRLF lines).
    public var text: String { sdp.text }

    static func section(_ slot: SubscriberOfferSlot, transport: NegotiationTransport) -> MediaDescription {
        let video = slot.kind == .video
        let track = slot.track
        let pt = video ? vp8PayloadType : opusPayloadType
        // RTX for a sent video track with an RTX SSRC, and for an inactive
        // video slot; never for a video track without one.
        let rtx = video && (track == nil || track?.rtxSSRC != nil)
        var attributes = transport.attributes(setup: .actpass)
        attributes.append(.mid(slot.mid))
        attributes += NegotiatedHeaderExtensions.subscriberOffer(for: slot.kind).extmaps.map(SDPAttribute.extmap)
        attributes.append(.direction(track == nil ? .inactive : .sendonly))
        if let track {
            attributes.append(.msid(SDPMediaStreamID(streamID: track.participantSID, trackID: track.trackSID)))
        }
        attributes.append(.rtcpMux)
        if video {
            attributes.append(.rtpmap(SDPRTPMap(payloadType: pt, encoding: "VP8", clockRate: 90000)))
            attributes += NegotiatedFeedback.video.lines(payloadType: pt).map(SDPAttribute.rtcpFeedback)
        } else {
            attributes.append(.rtpmap(SDPRTPMap(payloadType: pt, encoding: "opus", clockRate: 48000, channels: 2)))
            attributes += NegotiatedFeedback.audio.lines(payloadType: pt).map(SDPAttribute.rtcpFeedback)
            attributes.append(.fmtp(SDPFormatParameters(payloadType: pt, parameters: "minptime=10;useinbandfec=1")))
        }
        if rtx {
            attributes.append(.rtpmap(SDPRTPMap(payloadType: rtxPayloadType, encoding: "rtx", clockRate: 90000)))
            attributes.append(.fmtp(SDPFormatParameters(payloadType: rtxPayloadType, parameters: "apt=\(pt)")))
        }
        if let track {
            // aiortc routes by these SSRCs, not by MID (INTEROP.md).
            var ssrcs = [track.ssrc]
            if video, let rtxSSRC = track.rtxSSRC {
                ssrcs.append(rtxSSRC)
                attributes.append(.ssrcGroup(SDPSSRCGroup(semantics: "FID", ssrcs: [track.ssrc.rawValue, rtxSSRC.rawValue])))
            }
            let msid = "\(track.participantSID) \(track.trackSID)"
            for ssrc in ssrcs {
                attributes.append(.ssrc(SDPSSRCAttribute(ssrc: ssrc.rawValue, attribute: "cname", value: track.participantSID)))
                attributes.append(.ssrc(SDPSSRCAttribute(ssrc: ssrc.rawValue, attribute: "msid", value: msid)))
            }
        }
        return MediaDescription(
            kind: slot.kind, port: transport.mediaPort, formats: rtx ? [String(pt), String(rtxPayloadType)] : [String(pt)],
            connection: transport.connection, attributes: attributes)
    }
}

// MARK: - The client's answer

extension SubscriberOffer {
    /// Checks the size of `answerText`, parses it, and reads it against this
    /// offer. Throws 53403 for a description over 256 KiB or one that does
    /// not parse, and as `parseAnswer(_:previous:)` does.
    public func parseAnswer(_ answerText: String, previous: SubscriberAnswer? = nil) throws(NegotiationError) -> SubscriberAnswer {
        try parseAnswer(NegotiationChecks.parse(answerText, what: "subscriber answer"), previous: previous)
    }

    /// Reads the client's answer to this offer.
    ///
    /// - Parameter previous: the answer to the previous offer on this
    ///   connection, to tell whether the client's ICE credentials changed.
    /// - Throws: 53403 when the answer's m-lines do not match the offer's
    ///   (count, order, mids, kinds), a mid repeats, an extmap ID is out of
    ///   range, an accepted m-line is outside the BUNDLE group or lacks
    ///   `a=rtcp-mux`, ICE credentials or the sha-256 fingerprint are
    ///   missing, or `a=setup` is `actpass`/`holdconn`.
    public func parseAnswer(_ answer: SessionDescription, previous: SubscriberAnswer? = nil) throws(NegotiationError) -> SubscriberAnswer {
        let what = "subscriber answer"
        guard answer.media.count == slots.count else {
            throw .serverRemoteDescFailed("\(what) has \(answer.media.count) m-lines; the offer has \(slots.count)")
        }
        try NegotiationChecks.checkStructure(answer, what: what)
        for (slot, media) in zip(slots, answer.media) where media.mid != slot.mid || media.kind != slot.kind {
            throw .serverRemoteDescFailed(
                "\(what): m-line of mid '\(media.mid ?? "")' (\(media.kind)) answers mid '\(slot.mid)' (\(slot.kind))")
        }
        let bundled = Set(answer.bundleGroups.first?.mids ?? [])
        // Port 0 in a BUNDLE group is a bundled m-line (RFC 8843 section
        // 7.3.1 lets an answerer write its non-tagged m-lines that way).
        let accepted = answer.media.map { $0.port != 0 || bundled.contains($0.mid ?? "") }
        guard let taggedIndex = accepted.firstIndex(of: true) else {
            throw .serverRemoteDescFailed("\(what) rejects every m-line")
        }
        // The answerer-tagged m-line is the first of its BUNDLE group.
        let tagged = answer.bundleGroups.first?.mids.first.flatMap { answer.media(withMID: $0) } ?? answer.media[taggedIndex]
        let remote = try NegotiationChecks.remoteTransport(tagged, in: answer, what: what)
        let role: DTLSRole
        switch tagged.setup(in: answer) {
        case .active, nil: role = .server  // RFC 4145 section 4: absent means active
        case .passive: role = .client
        case .actpass, .holdconn:
            throw .serverRemoteDescFailed("\(what): a=setup must be active or passive in an answer (RFC 8842 section 5.3)")
        }

        var negotiated: [NegotiatedMedia] = []
        for (index, (slot, media)) in zip(slots, answer.media).enumerated() {
            var result = NegotiatedMedia(
                mid: slot.mid, kind: slot.kind, rejection: nil, remoteDirection: media.direction(in: answer),
                codec: nil, remoteSSRCs: NegotiatedSSRCs(media), headerExtensions: NegotiatedHeaderExtensions(),
                feedback: [], remoteMSID: media.msid)
            guard accepted[index] else {
                result.rejection = .answerRejected
                negotiated.append(result)
                continue
            }
            guard bundled.contains(slot.mid) else {
                throw .serverRemoteDescFailed("\(what): mid '\(slot.mid)' is accepted outside the BUNDLE group")
            }
            guard media.hasRTCPMux else {
                throw .serverRemoteDescFailed("\(what): mid '\(slot.mid)' has no a=rtcp-mux")
            }
            let video = slot.kind == .video
            let name: NegotiatedCodec.Name = video ? .vp8 : .opus
            // The answer may only pick payload types the offer listed (RFC 3264 section 6.1).
            guard var codec = NegotiatedCodec.find(name, in: media),
                  codec.payloadType == (video ? Self.vp8PayloadType : Self.opusPayloadType)
            else {
                result.rejection = .noSupportedCodec
                negotiated.append(result)
                continue
            }
            let offeredRTX = video && (slot.track == nil || slot.track?.rtxSSRC != nil)
            if codec.rtxPayloadType != Self.rtxPayloadType || !offeredRTX { codec.rtxPayloadType = nil }
            result.codec = codec
            let offered: NegotiatedFeedback = video ? .video : .audio
            result.feedback = NegotiatedFeedback(media.rtcpFeedback(for: codec.payloadType)).intersection(offered)
            var extensions = NegotiatedHeaderExtensions(media)
            if video { extensions.audioLevel = nil }
            result.headerExtensions = extensions
            negotiated.append(result)
        }
        return SubscriberAnswer(
            media: negotiated, remote: remote, dtlsRole: role,
            remoteICEChanged: previous.map { $0.remote.ice != remote.ice } ?? false)
    }
}
