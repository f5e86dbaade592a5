import SDP
import WebRTC

/// Writes the answer to a server subscriber offer (PROTOCOL.md 3.4, 5):
/// every offered m-line kept in order, in one BUNDLE group; `a=setup:active`
/// (the client is the DTLS client, the server offers actpass); per
/// m-line the offered codec's payload type, its offered rtcp-fb and fmtp,
/// and for video the offered RTX payload type (RFC 4588, `apt=` the codec)
/// as browsers accept it: the server then repairs on the RTX SSRC and
/// probes our downlink with padding there (without RTX it cannot probe,
/// and our estimate stays where it starts); the offered extmaps with their
/// IDs, and `recvonly` for a sendonly m-line, `inactive` for an inactive one.
struct SubscribeAnswerWriter {
    var ice: ICECredentials
    var fingerprint: String
    var sessionID: String
    var sessionVersion: UInt64

    func answer(to offer: ServerDescription) -> SessionDescription {
        let sections = offer.media.map(section)
        return SessionDescription(
            origin: SDPOrigin(sessionID: sessionID, sessionVersion: sessionVersion),
            attributes: [
                .group(.bundle(offer.media.map(\.mid))),
                .msidSemantic(SDPMSIDSemantic(semantic: "WMS", identifiers: [], spaceAfterColon: true)),
            ],
            media: sections)
    }

    func section(_ offered: ServerDescription.Media) -> MediaDescription {
        let source = offered.description
        var attributes: [SDPAttribute] = [
            .rtcp("9 IN IP4 0.0.0.0"),
            .iceUfrag(ice.ufrag), .icePwd(ice.password), .iceOptions(["trickle"]),
            .fingerprint(SDPFingerprint(hashFunction: "sha-256", value: fingerprint)),
            .setup(.active),
            .mid(offered.mid),
        ]
        attributes += source.extmaps.map(SDPAttribute.extmap)
        let direction: SDPDirection = offered.direction.sends && offered.payloadType != nil ? .recvonly : .inactive
        attributes.append(.direction(direction))
        attributes.append(.rtcpMux)
        var formats = source.formats
        if let pt = offered.payloadType {
            formats = [String(pt)]
            if offered.kind == .video { attributes.append(.rtcpRsize) }
            if let rtpmap = source.rtpmap(for: pt) { attributes.append(.rtpmap(rtpmap)) }
            attributes += source.rtcpFeedback(for: pt).map(SDPAttribute.rtcpFeedback)
            if let fmtp = source.fmtp(for: pt) { attributes.append(.fmtp(fmtp)) }
            if let rtx = offered.rtxPayloadType, let rtpmap = source.rtpmap(for: rtx), let fmtp = source.fmtp(for: rtx) {
                formats.append(String(rtx))
                attributes.append(.rtpmap(rtpmap))
                attributes.append(.fmtp(fmtp))
            }
        }
        return MediaDescription(
            kind: source.kind, port: 9, formats: formats, connection: SDPConnection(address: "0.0.0.0"),
            attributes: attributes)
    }
}
