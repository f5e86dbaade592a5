// fuzz-module: SDP
// libFuzzer entry point: SessionDescription parsing over arbitrary bytes
// (decoded as UTF-8, invalid sequences replaced). Whatever parses must write
// back to text that parses to the same value and the same text.
// Built by scripts/fuzz.sh together with Sources/SDP/*.swift into one module.
#if canImport(SDP)
import SDP
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func sdpFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)
    guard let parsed = try? SessionDescription(parsing: text) else { return 0 }

    // Touch the accessors the WebRTC layer uses.
    _ = parsed.bundleGroups
    _ = parsed.isICELite
    for media in parsed.media {
        _ = (media.mid, media.direction, media.rtpmaps, media.extmaps, media.ssrcs, media.ssrcGroups)
        _ = (media.candidates, media.isBundleOnly, media.isRejected, media.rids, media.simulcast)
        _ = (media.iceUfrag(in: parsed), media.icePwd(in: parsed), media.setup(in: parsed), media.direction(in: parsed))
        for fingerprint in media.fingerprints(in: parsed) { _ = fingerprint.digest }
        for map in media.rtpmaps {
            _ = media.fmtp(for: map.payloadType)?.pairs
            _ = media.rtcpFeedback(for: map.payloadType)
        }
    }

    let written = parsed.text
    let reparsed: SessionDescription
    do {
        reparsed = try SessionDescription(parsing: written)
    } catch {
        fatalError("written description does not parse: \(error)\n\(written.debugDescription)")
    }
    guard reparsed == parsed else {
        fatalError("parse(write(x)) != x for \(text.debugDescription)")
    }
    guard reparsed.text.utf8.elementsEqual(written.utf8) else {
        fatalError("write(parse(write(x))) != write(x) for \(text.debugDescription)")
    }
    return 0
}
