import SDP

/// Session descriptions for signaling until the media plane lands (the
/// media-plane issue replaces these with real ICE-lite/DTLS answers and
/// offers): the control plane is complete and honest about media, which it
/// does not carry yet.
enum PlaceholderSDP {
    /// An answer that rejects every m-line of `offer` (port 0, same mid and
    /// first format), as PROTOCOL.md allows before media exists.
    static func rejectingAnswer(to offer: SessionDescription) -> String {
        var lines = ["v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=-", "t=0 0"]
        for media in offer.media {
            let format = media.formats.first ?? "0"
            lines.append("m=\(media.kind.description) 0 \(media.proto) \(format)")
            lines.append("c=IN IP4 0.0.0.0")
            if let mid = media.mid { lines.append("a=mid:\(mid)") }
            lines.append("a=inactive")
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// A subscriber offer with one inactive m-line per slot, carrying the
    /// msid of the track in it (PROTOCOL.md section 5).
    static func subscriberOffer(slots: [SubscriberSlot], version: Int) -> String {
        var lines = ["v=0", "o=- 2 \(version) IN IP4 127.0.0.1", "s=-", "t=0 0"]
        if !slots.isEmpty {
            lines.append("a=group:BUNDLE " + slots.map(\.mid).joined(separator: " "))
        }
        for slot in slots {
            let (kind, payload) = slot.kind == .audio ? ("audio", "111 opus/48000/2") : ("video", "96 VP8/90000")
            let pt = payload.split(separator: " ")[0]
            lines.append("m=\(kind) 9 UDP/TLS/RTP/SAVPF \(pt)")
            lines.append("c=IN IP4 0.0.0.0")
            lines.append("a=mid:\(slot.mid)")
            lines.append("a=rtpmap:\(payload)")
            if let track = slot.track {
                lines.append("a=msid:\(track.publisher) \(track.sid)")
            }
            lines.append("a=inactive")
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}

/// One m-line of a subscriber connection: a removed track's m-line stays,
/// inactive, and may be reused by a later track of the same kind.
struct SubscriberSlot: Sendable, Equatable {
    var mid: String
    var kind: SignalingTrackKind
    var track: (sid: String, publisher: String)?

    static func == (lhs: SubscriberSlot, rhs: SubscriberSlot) -> Bool {
        lhs.mid == rhs.mid && lhs.kind == rhs.kind && lhs.track?.sid == rhs.track?.sid
            && lhs.track?.publisher == rhs.track?.publisher
    }
}
