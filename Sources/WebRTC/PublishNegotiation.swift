import Packets
import SDP

/// Answers a client's offer on its publisher connection, where the client
/// always offers and the server always answers (PROTOCOL.md section 3).
/// Pure: the same inputs give the same answer.
///
/// The answer (PROTOCOL.md section 5, RFC 8829 section 5.3):
/// - session level: `a=ice-lite`, `a=group:BUNDLE` of the accepted mids
///   (offer order; the first one carries the transport), and
///   `a=extmap-allow-mixed` when the offer has it at session level;
/// - every accepted m-line carries the server's port and address, all its
///   candidates, `a=end-of-candidates`, ICE credentials, fingerprint and
///   `a=setup` (as aiortc writes them; BUNDLE peers read the tagged
///   m-line's and ignore the rest), `a=mid`, the kept extensions with the
///   offer's IDs, the direction, `a=rtcp-mux`, and one codec: Opus with
///   `useinbandfec=1` or VP8 (+ RTX when offered) on the offer's payload
///   types with the feedback both sides support;
/// - a video m-line sending RID simulcast (PROTOCOL.md section 7) gets
///   `a=rid:<id> recv` per accepted layer and `a=simulcast:recv <ids>`, and
///   keeps the rid and repaired-rid extensions; see `acceptSimulcast` for
///   when it is declined (one layer) and when RTX is dropped;
/// - a rejected m-line is `port 0`, `c=IN IP4 0.0.0.0`, `a=mid` and, for
///   RTP, `a=inactive`.
public enum PublishNegotiation {
    /// Checks the size of `offerText`, parses it, and answers it. Throws
    /// 53403 for a description over 256 KiB or one that does not parse.
    public static func answer(
        offerText: String, transport: NegotiationTransport, sessionID: String, sessionVersion: UInt64,
        previous: PublishAnswer? = nil
    ) throws(NegotiationError) -> PublishAnswer {
        let offer = try NegotiationChecks.parse(offerText, what: "publish offer")
        return try answer(
            offer: offer, transport: transport, sessionID: sessionID, sessionVersion: sessionVersion,
            previous: previous)
    }

    /// Answers `offer`.
    ///
    /// - Parameters:
    ///   - sessionID, sessionVersion: the answer's `o=` line; keep the ID
    ///     per connection and increase the version with every answer
    ///     (RFC 8866 section 5.2).
    ///   - previous: the answer to this connection's previous offer, for a
    ///     renegotiation: the m-lines it had must keep their position and
    ///     kind (RFC 3264 section 8), the DTLS role is kept (RFC 8842
    ///     section 5.5), and changed ICE credentials set `iceRestart`.
    /// - Throws: 53403 when the offer has more than 64 m-lines, an m-line
    ///   without a mid or two with the same one, an extmap ID out of range,
    ///   no BUNDLE group, an accepted m-line without `a=rtcp-mux`, no ICE
    ///   credentials or sha-256 fingerprint, `a=setup:holdconn`, one SSRC
    ///   declared twice, or reorders or drops the previous offer's m-lines,
    ///   or has simulcast lines it cannot route (`SimulcastOffer`: duplicate
    ///   or malformed rids, more than 3 layers, a rid without its `a=rid`
    ///   line or with a `recv` one, simulcast on audio; rid extension IDs
    ///   that differ across the BUNDLE). An m-line without
    ///   Opus/VP8 is only rejected in the answer; see
    ///   `PublishAnswer.requireCodecs(forMIDs:)`.
    public static func answer(
        offer: SessionDescription, transport: NegotiationTransport, sessionID: String, sessionVersion: UInt64,
        previous: PublishAnswer? = nil
    ) throws(NegotiationError) -> PublishAnswer {
        let what = "publish offer"
        guard offer.media.count <= NegotiationChecks.maximumOfferedMediaSections else {
            throw .serverRemoteDescFailed(
                "\(what) has \(offer.media.count) m-lines; at most \(NegotiationChecks.maximumOfferedMediaSections)")
        }
        try NegotiationChecks.checkStructure(offer, what: what)
        if let previous { try checkOrder(offer, against: previous) }

        guard let group = offer.bundleGroups.first, !group.mids.isEmpty else {
            throw .serverRemoteDescFailed("\(what) has no a=group:BUNDLE (every m-line must share one transport)")
        }
        // The offerer-tagged m-line (RFC 8843 section 7.2) carries the transport.
        guard let tagged = offer.media(withMID: group.mids[0]) else {
            throw .serverRemoteDescFailed("\(what): BUNDLE names mid '\(group.mids[0])', which no m-line has")
        }
        let remote = try NegotiationChecks.remoteTransport(tagged, in: offer, what: what)
        let (setup, role) = try answerSetup(tagged.setup(in: offer), previous: previous?.dtlsRole)
        let bundled = Set(group.mids)

        var negotiated: [NegotiatedMedia] = []
        var sections: [MediaDescription] = []
        for offered in offer.media {
            let result = try negotiate(offered, in: offer, bundled: bundled)
            negotiated.append(result)
            sections.append(answerSection(offered, result, transport: transport, setup: setup))
        }

        // One SSRC names one stream (RFC 3550 section 8.2): an offer that
        // declares one on two m-lines, or as both media and RTX, cannot be
        // routed, so it is refused before anything changes.
        // Every `a=ssrc` counts, not only the first FID pair: Firefox
        // declares one pair per simulcast layer.
        var declared = Set<SSRC>()
        for media in negotiated where media.isAccepted {
            let pair = [media.remoteSSRCs.primary, media.remoteSSRCs.rtx].compactMap { $0 }
            for ssrc in pair + media.remoteSSRCs.all.filter({ !pair.contains($0) }) where !declared.insert(ssrc).inserted {
                throw .serverRemoteDescFailed("\(what): mid '\(media.mid)' declares SSRC \(ssrc.rawValue), already declared")
            }
        }
        try checkRIDExtensions(negotiated, in: offer)
        let accepted = negotiated.filter(\.isAccepted).map(\.mid)
        var attributes: [SDPAttribute] = [.iceLite]
        if !accepted.isEmpty { attributes.append(.group(.bundle(accepted))) }
        if offer.attributes.contains(.extmapAllowMixed) { attributes.append(.extmapAllowMixed) }
        let sdp = SessionDescription(
            origin: SDPOrigin(sessionID: sessionID, sessionVersion: sessionVersion), attributes: attributes,
            media: sections)
        return PublishAnswer(
            sdp: sdp, media: negotiated, remote: remote, dtlsRole: role,
            iceRestart: previous.map { $0.remote.ice != remote.ice } ?? false, bundleMIDs: accepted)
    }

    /// One BUNDLE group is one RTP session (RFC 8843 section 9), where an
    /// extension ID names one extension (RFC 8285): the router reads one
    /// rid and one repaired-rid ID per publisher connection
    /// (`PublishAnswer.ridExtensionID`). Two simulcast m-lines with
    /// different IDs for them, or their ID naming another extension on
    /// another accepted m-line, could not be routed: refused.
    static func checkRIDExtensions(_ negotiated: [NegotiatedMedia], in offer: SessionDescription) throws(NegotiationError) {
        let simulcast = negotiated.filter { $0.isAccepted && $0.simulcast != nil }
        for (uri, ids) in [
            (SDPExtmap.ridURI, simulcast.compactMap(\.headerExtensions.rid)),
            (SDPExtmap.repairedRIDURI, simulcast.compactMap(\.headerExtensions.repairedRID)),
        ] {
            guard let id = ids.first else { continue }
            guard ids.allSatisfy({ $0 == id }) else {
                throw .serverRemoteDescFailed("publish offer: simulcast m-lines give \(uri) different extmap ids \(ids); one BUNDLE has one")
            }
            for media in negotiated where media.isAccepted {
                guard let offered = offer.media(withMID: media.mid) else { continue }
                if let other = offered.extmaps.first(where: { $0.id == UInt16(id) && $0.uri != uri }) {
                    throw .serverRemoteDescFailed(
                        "publish offer: extmap id \(id) is \(uri) on a simulcast m-line and \(other.uri) on mid '\(media.mid)'")
                }
            }
        }
    }

    /// RFC 3264 section 8: a later offer keeps every earlier m-line in its
    /// place with its kind, and may only append.
    static func checkOrder(_ offer: SessionDescription, against previous: PublishAnswer) throws(NegotiationError) {
        guard offer.media.count >= previous.media.count else {
            throw .serverRemoteDescFailed(
                "publish offer has \(offer.media.count) m-lines, the previous one \(previous.media.count): m-lines may not be removed (RFC 3264 section 8)")
        }
        for (old, new) in zip(previous.media, offer.media) where old.mid != new.mid || old.kind != new.kind {
            throw .serverRemoteDescFailed(
                "publish offer changes the m-line of mid '\(old.mid)' (\(old.kind)) to mid '\(new.mid ?? "")' (\(new.kind))")
        }
    }

    /// The answer's `a=setup` and the server's role (RFC 5763 section 5,
    /// RFC 8842): `passive` (DTLS server) to `actpass`, or the role already
    /// held in a renegotiation; `passive` to `active`; `active` to
    /// `passive`. A missing attribute counts as `actpass`, the only value
    /// an offer may carry under RFC 8842 section 5.2.
    static func answerSetup(_ offered: SDPSetupRole?, previous: DTLSRole?) throws(NegotiationError) -> (SDPSetupRole, DTLSRole) {
        switch offered ?? .actpass {
        case .actpass:
            return previous == .client ? (.active, .client) : (.passive, .server)
        case .active:
            return (.passive, .server)
        case .passive:
            return (.active, .client)
        case .holdconn:
            throw .serverRemoteDescFailed("publish offer has a=setup:holdconn; DTLS must start")
        }
    }

    /// What the server takes of one offered m-line.
    static func negotiate(
        _ offered: MediaDescription, in offer: SessionDescription, bundled: Set<String>
    ) throws(NegotiationError) -> NegotiatedMedia {
        let mid = offered.mid ?? ""  // checkStructure guarantees one
        let direction = offered.direction(in: offer)
        var result = NegotiatedMedia(
            mid: mid, kind: offered.kind, rejection: nil, remoteDirection: direction, codec: nil,
            remoteSSRCs: NegotiatedSSRCs(offered), headerExtensions: NegotiatedHeaderExtensions(),
            feedback: [], remoteMSID: offered.msid)
        guard let name = NegotiatedCodec.name(for: offered.kind), NegotiationChecks.isRTP(offered) else {
            result.rejection = .unsupportedMedia
            return result
        }
        if offered.isRejected {
            result.rejection = .offerRejected
        } else if !bundled.contains(mid) {
            result.rejection = .notBundled
        } else if let codec = NegotiatedCodec.find(name, in: offered) {
            guard offered.hasRTCPMux else {
                throw .serverRemoteDescFailed("publish offer: mid '\(mid)' has no a=rtcp-mux (required, RFC 8858)")
            }
            let supported: NegotiatedFeedback = name == .vp8 ? .video : .audio
            result.codec = codec
            result.feedback = NegotiatedFeedback(offered.rtcpFeedback(for: codec.payloadType)).intersection(supported)
            result.headerExtensions = NegotiatedHeaderExtensions(offered)
            // Audio level is an audio extension (RFC 6464); it is not kept on video.
            if name == .vp8 { result.headerExtensions.audioLevel = nil }
            if let simulcast = try SimulcastOffer(validating: offered, mid: mid, what: "publish offer") {
                acceptSimulcast(simulcast, of: offered, into: &result)
            }
            return result
        } else {
            result.rejection = .noSupportedCodec
        }
        return result
    }

    /// Accepts what can be routed of a checked simulcast offer (PROTOCOL.md
    /// section 7), or declines it by leaving `result` one layer; the answer
    /// then has no `a=simulcast` and the client sends only its first
    /// encoding (RFC 8853 section 5.3, JSEP section 5.3.1). Seen with
    /// Chromium 156: given such an answer it keeps one encoding, its first,
    /// which PROTOCOL.md's lowest-first order makes the smallest (`q` at
    /// `scaleResolutionDownBy` 4): a declined publisher still publishes, at
    /// a quarter of its capture.
    ///
    /// - Kept whatever the m-line's direction: an unpublished track's
    ///   transceiver goes `inactive` (or `recvonly` after `removeTrack` on a
    ///   `sendrecv` one) and Chromium goes on offering its layers there; it
    ///   refuses its own next offer ("negotiates simulcast but does not
    ///   negotiate the RID RTP header extension") when the answer dropped the
    ///   RID extension. Seen when the meeting page switched cameras.
    /// - Declined when the client does not offer the `sdes:rtp-stream-id`
    ///   and `sdes:mid` extensions (for sending): Chromium's and Firefox's simulcast offers declare no
    ///   SSRCs, so a layer's packets can only be told apart by their RID
    ///   and bound to the m-line by their MID. Declining rather than
    ///   refusing lets such a client still publish, in one layer.
    /// - A layer whose `a=rid` `pt=` list leaves out the VP8 payload type
    ///   cannot be sent in VP8: it is left out; with none left, declined.
    /// - RTX stays only with `sdes:repaired-rtp-stream-id`: the server tells
    ///   a layer's RTX stream by it (the offers declare no RTX SSRCs
    ///   either). Without it RTX is dropped from the answer, and the client
    ///   repairs nothing (it still gets NACK and PLI).
    static func acceptSimulcast(_ offer: SimulcastOffer, of offered: MediaDescription, into result: inout NegotiatedMedia) {
        guard let codec = result.codec,
              let rid = sentExtensionID(SDPExtmap.ridURI, in: offered),
              sentExtensionID(SDPExtmap.midURI, in: offered) != nil
        else { return }
        let layers = offer.layers.filter { $0.payloadTypes?.contains(codec.payloadType) ?? true }.map(\.layer)
        guard !layers.isEmpty else { return }
        result.simulcast = NegotiatedSimulcast(layers: layers)
        result.headerExtensions.rid = rid
        result.headerExtensions.repairedRID = sentExtensionID(SDPExtmap.repairedRIDURI, in: offered)
        if result.headerExtensions.repairedRID == nil { result.codec?.rtxPayloadType = nil }
    }

    /// The ID of `uri` in `media` when the client may send it: no direction,
    /// `sendonly` or `sendrecv` (Firefox writes `a=extmap:9/sendonly`).
    /// NegotiationChecks has put every ID in 1...255.
    static func sentExtensionID(_ uri: String, in media: MediaDescription) -> UInt8? {
        guard let extmap = media.extmaps.first(where: { $0.uri == uri }), extmap.direction?.sends ?? true else { return nil }
        return UInt8(exactly: extmap.id)
    }

    /// The answer's m-line for one offered m-line.
    static func answerSection(
        _ offered: MediaDescription, _ result: NegotiatedMedia, transport: NegotiationTransport, setup: SDPSetupRole
    ) -> MediaDescription {
        guard let codec = result.codec, result.isAccepted else {
            // RFC 8829 section 5.3.1: a rejected m-line keeps the offer's
            // media type and protocol, port 0; one format is enough.
            var attributes: [SDPAttribute] = [.mid(result.mid)]
            if NegotiationChecks.isRTP(offered) { attributes.append(.direction(.inactive)) }
            return MediaDescription(
                kind: offered.kind, port: 0, proto: offered.proto, formats: Array(offered.formats.prefix(1)),
                connection: SDPConnection(address: "0.0.0.0"), attributes: attributes)
        }
        var attributes = transport.attributes(setup: setup)
        attributes.append(.mid(result.mid))
        // Kept extensions with the offer's IDs; an extmap direction is the
        // offerer's, so the answer reverses it (RFC 8285 section 7).
        // The RID extensions only with an accepted simulcast, which uses them.
        let ridIDs = [result.headerExtensions.rid, result.headerExtensions.repairedRID].compactMap { $0 }
        for extmap in offered.extmaps {
            switch extmap.uri {
            case SDPExtmap.audioLevelURI where offered.kind != .audio: continue
            case SDPExtmap.ridURI, SDPExtmap.repairedRIDURI:
                guard result.simulcast != nil, let id = UInt8(exactly: extmap.id), ridIDs.contains(id) else { continue }
            case _ where NegotiatedHeaderExtensions.keptURIs.contains(extmap.uri): break
            default: continue
            }
            attributes.append(.extmap(SDPExtmap(id: extmap.id, direction: extmap.direction?.reversed, uri: extmap.uri)))
        }
        if offered.attributes.contains(.extmapAllowMixed) { attributes.append(.extmapAllowMixed) }
        attributes.append(.direction(result.remoteDirection.sends ? .recvonly : .inactive))
        attributes.append(.rtcpMux)
        var formats = [String(codec.payloadType)]
        if let rtpmap = offered.rtpmap(for: codec.payloadType) { attributes.append(.rtpmap(rtpmap)) }
        attributes += result.feedback.lines(payloadType: codec.payloadType).map(SDPAttribute.rtcpFeedback)
        if codec.name == .opus {
            // RFC 7587 section 6.1: the receiver asks for in-band FEC.
            attributes.append(.fmtp(SDPFormatParameters(payloadType: codec.payloadType, parameters: "minptime=10;useinbandfec=1")))
        }
        if let rtx = codec.rtxPayloadType {
            formats.append(String(rtx))
            if let rtpmap = offered.rtpmap(for: rtx) { attributes.append(.rtpmap(rtpmap)) }
            attributes.append(.fmtp(SDPFormatParameters(payloadType: rtx, parameters: "apt=\(codec.payloadType)")))
        }
        if let simulcast = result.simulcast {
            // RFC 8851 section 6 / RFC 8853 section 5.3: each accepted layer
            // as `a=rid:<id> recv`, then the receive list in the offer's order.
            for layer in simulcast.layers { attributes.append(.rid(SDPRID(id: layer.rid, direction: .recv))) }
            let recv = simulcast.layers.map { [SDPSimulcast.Layer(rid: $0.rid, paused: $0.paused)] }
            attributes.append(.simulcast(SDPSimulcast(send: [], recv: recv)))
        }
        return MediaDescription(
            kind: offered.kind, port: transport.mediaPort, proto: offered.proto, formats: formats,
            connection: transport.connection, attributes: attributes)
    }
}
