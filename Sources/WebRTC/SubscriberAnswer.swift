/// What a client's answer on its subscriber connection agreed to, read
/// against the server's `SubscriberOffer`.
public struct SubscriberAnswer: Hashable, Sendable {
    /// One entry per slot of the offer, in order. `codec.rtxPayloadType`
    /// is non-nil when the client accepted RTX (NACK repairs then go on the
    /// RTX SSRC, else on the primary one: PROTOCOL.md section 5);
    /// `feedback` and `headerExtensions` say what to honour and write.
    public var media: [NegotiatedMedia]
    /// The client's ICE credentials and certificate fingerprint.
    public var remote: RemoteTransportParameters
    /// The server's DTLS role: client answered `active` -> `.server`,
    /// `passive` -> `.client`.
    public var dtlsRole: DTLSRole
    /// Whether the client's ICE credentials differ from the previous answer's.
    public var remoteICEChanged: Bool

    public init(media: [NegotiatedMedia], remote: RemoteTransportParameters, dtlsRole: DTLSRole, remoteICEChanged: Bool) {
        self.media = media
        self.remote = remote
        self.dtlsRole = dtlsRole
        self.remoteICEChanged = remoteICEChanged
    }

    /// The negotiated m-line whose mid is `mid`.
    public func media(withMID mid: String) -> NegotiatedMedia? {
        media.first { $0.mid == mid }
    }
}
