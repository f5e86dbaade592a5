import SDP

/// The checks every client description goes through before it is used,
/// on both connections (PROTOCOL.md section 4: failures are 53403).
enum NegotiationChecks {
    /// A 50-person subscriber offer is about 75 KB (PROTOCOL.md section 1);
    /// a client's publish offer or subscriber answer with a few tracks is
    /// 3-12 KB (Chromium's two-track offer is 6.5 KB). 256 KiB leaves room
    /// for any honest description while bounding the parse of a hostile one.
    static let maximumTextBytes = 256 * 1024
    /// 16 publications per participant (PROTOCOL.md, 53203) plus slack for
    /// a data channel and removed m-lines that stay in renegotiations; a
    /// subscriber of a 50-person room with camera and mic holds 98, so the
    /// answer check uses the offer's own count instead.
    static let maximumOfferedMediaSections = 64

    /// Parses a client's description after checking its size.
    static func parse(_ text: String, what: String) throws(NegotiationError) -> SessionDescription {
        let size = text.utf8.count
        guard size <= maximumTextBytes else {
            throw .serverRemoteDescFailed("\(what) is \(size) bytes; at most \(maximumTextBytes) are accepted")
        }
        do {
            return try SessionDescription(parsing: text)
        } catch {
            throw .serverRemoteDescFailed("\(what) does not parse: \(error)")
        }
    }

    /// Every m-line has a mid, mids are unique, extmap IDs are in range and
    /// unique per m-line.
    static func checkStructure(_ sdp: SessionDescription, what: String) throws(NegotiationError) {
        var seen = Set<String>()
        for (index, media) in sdp.media.enumerated() {
            guard let mid = media.mid else {
                throw .serverRemoteDescFailed("\(what): m-line \(index) has no a=mid (BUNDLE needs one on every m-line)")
            }
            guard seen.insert(mid).inserted else {
                throw .serverRemoteDescFailed("\(what): mid '\(mid)' appears on more than one m-line")
            }
            try checkExtmaps(media, in: sdp, mid: mid, what: what)
        }
    }

    /// RFC 8285 section 4.2: one-byte IDs are 1-14 (15 is reserved); with
    /// `a=extmap-allow-mixed` (section 6) two-byte IDs 1-255 may be used.
    /// One ID may not name two URIs on one m-line.
    static func checkExtmaps(
        _ media: MediaDescription, in sdp: SessionDescription, mid: String, what: String
    ) throws(NegotiationError) {
        let twoByte = media.attributes.contains(.extmapAllowMixed) || sdp.attributes.contains(.extmapAllowMixed)
        let limit: UInt16 = twoByte ? 255 : 14
        var uris: [UInt16: String] = [:]
        for extmap in media.extmaps {
            guard extmap.id >= 1, extmap.id <= limit else {
                throw .serverRemoteDescFailed(
                    "\(what): mid '\(mid)': extmap id \(extmap.id) outside 1-\(limit)"
                        + (twoByte ? "" : " (one-byte headers; no a=extmap-allow-mixed)"))
            }
            if let other = uris[extmap.id], other != extmap.uri {
                throw .serverRemoteDescFailed("\(what): mid '\(mid)': extmap id \(extmap.id) names two extensions")
            }
            uris[extmap.id] = extmap.uri
        }
    }

    /// The ICE credentials and sha-256 fingerprint of `media` (or the
    /// session level, where Firefox puts its fingerprint).
    static func remoteTransport(
        _ media: MediaDescription, in sdp: SessionDescription, what: String
    ) throws(NegotiationError) -> RemoteTransportParameters {
        guard let ufrag = media.iceUfrag(in: sdp), !ufrag.isEmpty, let pwd = media.icePwd(in: sdp), !pwd.isEmpty else {
            throw .serverRemoteDescFailed("\(what): no a=ice-ufrag/a=ice-pwd")
        }
        // aiortc sends sha-256, sha-384 and sha-512: the DTLS side checks sha-256.
        guard let fingerprint = media.fingerprints(in: sdp).first(where: { $0.hashFunction.lowercased() == "sha-256" })
        else { throw .serverRemoteDescFailed("\(what): no a=fingerprint:sha-256") }
        guard let digest = fingerprint.digest, digest.count == 32 else {
            throw .serverRemoteDescFailed("\(what): a=fingerprint:sha-256 is not 32 colon-separated hex bytes")
        }
        return RemoteTransportParameters(
            ice: ICECredentials(ufrag: ufrag, password: pwd), fingerprintAlgorithm: "sha-256",
            fingerprint: SDPFingerprint(hashFunction: "sha-256", digest: digest).value)
    }

    /// RTP m-lines of WebRTC (`UDP/TLS/RTP/SAVPF`; Firefox also accepts the
    /// older `RTP/SAVPF`).
    static func isRTP(_ media: MediaDescription) -> Bool {
        media.proto == "UDP/TLS/RTP/SAVPF" || media.proto == "RTP/SAVPF"
    }
}
