import SDP

/// The server's answer on a participant's publisher connection and what it
/// agreed to (PROTOCOL.md sections 3.2 and 5). Made by
/// `PublishNegotiation.answer`; keep the latest one to pass as `previous`
/// to the next renegotiation.
public struct PublishAnswer: Hashable, Sendable {
    /// The answer; send `sdp.text` in `publishAnswer`.
    public var sdp: SessionDescription
    /// One entry per m-line of the offer, in the offer's order.
    public var media: [NegotiatedMedia]
    /// The client's ICE credentials and certificate fingerprint.
    public var remote: RemoteTransportParameters
    /// The server's DTLS role on this connection.
    public var dtlsRole: DTLSRole
    /// Whether the client's ICE credentials differ from the previous
    /// offer's (an ICE restart, RFC 8445 section 9): the PeerTransport must
    /// take the new ones and expect new checks.
    public var iceRestart: Bool
    /// The mids of the answer's BUNDLE group: the accepted m-lines.
    public var bundleMIDs: [String]

    public init(
        sdp: SessionDescription, media: [NegotiatedMedia], remote: RemoteTransportParameters, dtlsRole: DTLSRole,
        iceRestart: Bool, bundleMIDs: [String]
    ) {
        self.sdp = sdp
        self.media = media
        self.remote = remote
        self.dtlsRole = dtlsRole
        self.iceRestart = iceRestart
        self.bundleMIDs = bundleMIDs
    }

    /// The answer text (CRLF lines).
    public var text: String { sdp.text }

    /// The connection's `sdes:rtp-stream-id` extension ID, for the router's
    /// publisher: the one ID every accepted simulcast m-line uses
    /// (`PublishNegotiation` refuses offers where they differ); nil when no
    /// m-line has simulcast.
    public var ridExtensionID: UInt8? {
        media.lazy.filter { $0.isAccepted && $0.simulcast != nil }.compactMap(\.headerExtensions.rid).first
    }

    /// The connection's `sdes:repaired-rtp-stream-id` extension ID (the RID
    /// of the layer an RTX packet repairs); nil when no simulcast m-line
    /// negotiated it, and then no simulcast m-line has RTX.
    public var repairedRIDExtensionID: UInt8? {
        media.lazy.filter { $0.isAccepted && $0.simulcast != nil }.compactMap(\.headerExtensions.repairedRID).first
    }

    /// The negotiated m-line whose mid is `mid`.
    public func media(withMID mid: String) -> NegotiatedMedia? {
        media.first { $0.mid == mid }
    }

    /// The mids the client sends media on, in offer order: its published
    /// tracks' m-lines. A track whose m-line is rejected, `inactive` or
    /// `recvonly` is not among them (PROTOCOL.md section 3.2).
    public var sendingMIDs: [String] {
        media.filter(\.remoteSends).map(\.mid)
    }

    /// The mids that were sending in `previous` and are not any more
    /// (removed, `inactive`, `recvonly`, rejected): their tracks are
    /// unpublished.
    public func stoppedSending(since previous: PublishAnswer) -> [String] {
        let now = Set(sendingMIDs)
        return previous.sendingMIDs.filter { !now.contains($0) }
    }

    /// Checks each track's kind, as `publish.tracks` gives it (`kinds`, by
    /// position as `mids`), against its m-line: 53300 when it is neither
    /// `audio` nor `video` (a bad track description, PROTOCOL.md section
    /// 4), 53403 when the m-line is of the other kind (the offer contradicts
    /// its tracks).
    public func requireKinds(_ kinds: [String], forMIDs mids: [String]) throws(NegotiationError) {
        for (mid, kind) in zip(mids, kinds) {
            guard kind == MediaKind.audio.description || kind == MediaKind.video.description else {
                throw NegotiationError(code: 53300, message: "track '\(mid)' has kind '\(kind)'; it must be audio or video")
            }
            guard media(withMID: mid)?.kind.description == kind else {
                throw .serverRemoteDescFailed("track '\(mid)' is \(kind) but its m-line is not")
            }
        }
    }

    /// Throws 53404 when an m-line named in `mids` (the `tracks` of a
    /// `publish`) was rejected for want of Opus or VP8. A mid that names no
    /// m-line is not checked here: that is 53300 (PROTOCOL.md section 5),
    /// the signaling's check.
    public func requireCodecs(forMIDs mids: some Sequence<String>) throws(NegotiationError) {
        for mid in mids {
            guard let media = media(withMID: mid), media.rejection == .noSupportedCodec else { continue }
            let wanted = media.kind == .audio ? "Opus/48000/2" : "VP8/90000"
            throw .noSupportedCodec("mid '\(mid)' (\(media.kind)) offers no \(wanted)")
        }
    }
}
