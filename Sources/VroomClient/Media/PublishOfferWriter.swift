import Packets
import SDP
import WebRTC

/// Writes the publish offer a browser would send (PROTOCOL.md 3.2, 5;
/// INTEROP.md): one BUNDLE group over every m-line, rtcp-mux, ICE
/// credentials, the sha-256 fingerprint, `a=setup:actpass`, and per
/// m-line: sendonly with msid and `a=ssrc` cname/msid for a live track,
/// `a=inactive` for one that was removed (RFC 3264 section 8: m-lines are
/// never dropped); Opus on PT 111 (`minptime=10;useinbandfec=1`,
/// transport-cc) or VP8 on PT 96 (nack, nack pli, ccm fir, goog-remb,
/// transport-cc; no RTX: repairs go on the media SSRC, as aiortc does);
/// extmaps mid, ssrc-audio-level (audio), abs-send-time, transport-cc.
/// A simulcast video m-line (PROTOCOL.md section 7) adds the
/// rtp-stream-id extmap, `a=rid:<id> send` per layer and
/// `a=simulcast:send q;h;f` (lowest first), and lists no `a=ssrc`.
///
/// Pure: the same inputs give the same text.
struct PublishOfferWriter {
    /// One m-line of the publisher connection.
    struct Slot: Hashable, Sendable {
        var mid: String
        var kind: TrackKind
        /// nil: the track was removed; the m-line stays, inactive.
        var trackName: String?
        var ssrc: SSRC
        /// A simulcast video track's layers, lowest first; empty: one layer on `ssrc`.
        var layers: [Layer] = []
    }

    /// One simulcast layer: its RID and the SSRC it is sent on.
    struct Layer: Hashable, Sendable {
        var rid: String
        var ssrc: SSRC
    }

    static let opusPayloadType: UInt8 = 111
    static let vp8PayloadType: UInt8 = 96
    /// One-byte extension IDs (RFC 8285), the same on every m-line; Chromium's numbers.
    static let audioLevelID: UInt8 = 1
    static let absSendTimeID: UInt8 = 2
    static let transportCCID: UInt8 = 3
    static let midID: UInt8 = 4
    /// RFC 8852's rtp-stream-id, on simulcast m-lines only. No
    /// repaired-rtp-stream-id: the SDK sends no RTX.
    static let ridID: UInt8 = 10

    var ice: ICECredentials
    var fingerprint: String
    var cname: String
    /// The media stream ID in a=msid (one stream for all the tracks).
    var streamID: String
    var sessionID: String
    var sessionVersion: UInt64

    func description(slots: [Slot]) -> SessionDescription {
        let attributes: [SDPAttribute] = [
            .group(.bundle(slots.map(\.mid))),
            .msidSemantic(SDPMSIDSemantic(semantic: "WMS", identifiers: [streamID], spaceAfterColon: true)),
        ]
        return SessionDescription(
            origin: SDPOrigin(sessionID: sessionID, sessionVersion: sessionVersion), attributes: attributes,
            media: slots.map(section))
    }

    func section(_ slot: Slot) -> MediaDescription {
        let video = slot.kind == .video
        let pt = video ? Self.vp8PayloadType : Self.opusPayloadType
        var attributes: [SDPAttribute] = [
            .rtcp("9 IN IP4 0.0.0.0"),
            .iceUfrag(ice.ufrag), .icePwd(ice.password), .iceOptions(["trickle"]),
            .fingerprint(SDPFingerprint(hashFunction: "sha-256", value: fingerprint)),
            .setup(.actpass),
            .mid(slot.mid),
        ]
        if !video { attributes.append(.extmap(SDPExtmap(id: UInt16(Self.audioLevelID), uri: SDPExtmap.audioLevelURI))) }
        attributes.append(.extmap(SDPExtmap(id: UInt16(Self.absSendTimeID), uri: SDPExtmap.absSendTimeURI)))
        attributes.append(.extmap(SDPExtmap(id: UInt16(Self.transportCCID), uri: SDPExtmap.transportCCURI)))
        attributes.append(.extmap(SDPExtmap(id: UInt16(Self.midID), uri: SDPExtmap.midURI)))
        let simulcast = video && slot.trackName != nil && !slot.layers.isEmpty
        if simulcast { attributes.append(.extmap(SDPExtmap(id: UInt16(Self.ridID), uri: SDPExtmap.ridURI))) }
        attributes.append(.direction(slot.trackName == nil ? .inactive : .sendonly))
        if let name = slot.trackName {
            attributes.append(.msid(SDPMediaStreamID(streamID: streamID, trackID: name)))
        }
        attributes.append(.rtcpMux)
        if video {
            attributes.append(.rtcpRsize)
            attributes.append(.rtpmap(SDPRTPMap(payloadType: pt, encoding: "VP8", clockRate: 90000)))
            let feedback: [(String, String?)] = [
                ("goog-remb", nil), ("transport-cc", nil), ("ccm", "fir"), ("nack", nil), ("nack", "pli"),
            ]
            for (type, parameter) in feedback {
                attributes.append(.rtcpFeedback(SDPRTCPFeedback(payloadType: pt, type: type, parameter: parameter)))
            }
        } else {
            attributes.append(.rtpmap(SDPRTPMap(payloadType: pt, encoding: "opus", clockRate: 48000, channels: 2)))
            attributes.append(.rtcpFeedback(SDPRTCPFeedback(payloadType: pt, type: "transport-cc")))
            attributes.append(.fmtp(SDPFormatParameters(payloadType: pt, parameters: "minptime=10;useinbandfec=1")))
        }
        if simulcast {
            // RFC 8853 as Chromium writes it: the layers by RID, lowest
            // first, and no a=ssrc (the server binds each SSRC by the RID
            // and MID its packets carry).
            for layer in slot.layers { attributes.append(.rid(SDPRID(id: layer.rid, direction: .send))) }
            attributes.append(.simulcast(SDPSimulcast(send: slot.layers.map { [SDPSimulcast.Layer(rid: $0.rid)] })))
        } else if let name = slot.trackName {
            attributes.append(.ssrc(SDPSSRCAttribute(ssrc: slot.ssrc.rawValue, attribute: "cname", value: cname)))
            attributes.append(
                .ssrc(SDPSSRCAttribute(ssrc: slot.ssrc.rawValue, attribute: "msid", value: "\(streamID) \(name)")))
        }
        return MediaDescription(
            kind: slot.kind.sdpKind, port: 9, formats: [String(pt)], connection: SDPConnection(address: "0.0.0.0"),
            attributes: attributes)
    }
}
