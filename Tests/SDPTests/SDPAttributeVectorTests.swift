import SDP
import Testing

/// Hand-written `a=` lines for every typed attribute: parsed to the expected
/// value, and the value written back to the same text.
@Suite struct SDPAttributeVectorTests {
    static let vectors: [(String, SDPAttribute)] = [
        ("group:BUNDLE 0 1", .group(SDPGroup(semantics: "BUNDLE", mids: ["0", "1"]))),
        ("group:LS audio video", .group(SDPGroup(semantics: "LS", mids: ["audio", "video"]))),
        ("group:BUNDLE", .group(SDPGroup(semantics: "BUNDLE", mids: []))),
        ("mid:0", .mid("0")),
        ("mid:video0", .mid("video0")),
        ("msid:stream-a track-b", .msid(SDPMediaStreamID(streamID: "stream-a", trackID: "track-b"))),
        ("msid:- track-b", .msid(SDPMediaStreamID(streamID: "-", trackID: "track-b"))),
        ("msid:only-stream", .msid(SDPMediaStreamID(streamID: "only-stream", trackID: nil))),
        ("msid-semantic: WMS abc", .msidSemantic(SDPMSIDSemantic(semantic: "WMS", identifiers: ["abc"], spaceAfterColon: true))),
        ("msid-semantic: WMS", .msidSemantic(SDPMSIDSemantic(semantic: "WMS", identifiers: [], spaceAfterColon: true))),
        ("msid-semantic:WMS *", .msidSemantic(SDPMSIDSemantic(semantic: "WMS", identifiers: ["*"]))),
        ("rtpmap:111 opus/48000/2", .rtpmap(SDPRTPMap(payloadType: 111, encoding: "opus", clockRate: 48000, channels: 2))),
        ("rtpmap:96 VP8/90000", .rtpmap(SDPRTPMap(payloadType: 96, encoding: "VP8", clockRate: 90000))),
        ("rtpmap:0 PCMU/8000", .rtpmap(SDPRTPMap(payloadType: 0, encoding: "PCMU", clockRate: 8000))),
        ("fmtp:111 minptime=10;useinbandfec=1", .fmtp(SDPFormatParameters(payloadType: 111, parameters: "minptime=10;useinbandfec=1"))),
        ("fmtp:97 apt=96", .fmtp(SDPFormatParameters(payloadType: 97, parameters: "apt=96"))),
        ("fmtp:101 0-15", .fmtp(SDPFormatParameters(payloadType: 101, parameters: "0-15"))),
        ("rtcp-fb:96 nack", .rtcpFeedback(SDPRTCPFeedback(payloadType: 96, type: "nack"))),
        ("rtcp-fb:96 nack pli", .rtcpFeedback(SDPRTCPFeedback(payloadType: 96, type: "nack", parameter: "pli"))),
        ("rtcp-fb:96 ccm fir", .rtcpFeedback(SDPRTCPFeedback(payloadType: 96, type: "ccm", parameter: "fir"))),
        ("rtcp-fb:* transport-cc", .rtcpFeedback(SDPRTCPFeedback(payloadType: nil, type: "transport-cc"))),
        ("rtcp-fb:100 ccm tmmbr smaxpr=120", .rtcpFeedback(SDPRTCPFeedback(payloadType: 100, type: "ccm", parameter: "tmmbr smaxpr=120"))),
        ("extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
         .extmap(SDPExtmap(id: 3, uri: SDPExtmap.transportCCURI))),
        ("extmap:2/recvonly urn:ietf:params:rtp-hdrext:csrc-audio-level",
         .extmap(SDPExtmap(id: 2, direction: .recvonly, uri: "urn:ietf:params:rtp-hdrext:csrc-audio-level"))),
        ("extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level vad=on",
         .extmap(SDPExtmap(id: 1, uri: SDPExtmap.audioLevelURI, attributes: "vad=on"))),
        ("extmap-allow-mixed", .extmapAllowMixed),
        ("ssrc:1016036625 cname:lzh9ppUL14GTrV4T", .ssrc(SDPSSRCAttribute(ssrc: 1_016_036_625, attribute: "cname", value: "lzh9ppUL14GTrV4T"))),
        ("ssrc:4294967295 msid:s t", .ssrc(SDPSSRCAttribute(ssrc: 4_294_967_295, attribute: "msid", value: "s t"))),
        ("ssrc:0 novalue", .ssrc(SDPSSRCAttribute(ssrc: 0, attribute: "novalue"))),
        ("ssrc-group:FID 894581214 625799870", .ssrcGroup(SDPSSRCGroup(semantics: "FID", ssrcs: [894_581_214, 625_799_870]))),
        ("ssrc-group:SIM 1 2 3", .ssrcGroup(SDPSSRCGroup(semantics: "SIM", ssrcs: [1, 2, 3]))),
        ("rid:h send max-width=1280;max-height=720", .rid(SDPRID(id: "h", direction: .send, restrictions: "max-width=1280;max-height=720"))),
        ("rid:q recv", .rid(SDPRID(id: "q", direction: .recv))),
        ("simulcast:send h;m;l", .simulcast(SDPSimulcast(send: [[.init(rid: "h")], [.init(rid: "m")], [.init(rid: "l")]]))),
        ("simulcast:send 1,~4;2;3 recv c",
         .simulcast(SDPSimulcast(send: [[.init(rid: "1"), .init(rid: "4", paused: true)], [.init(rid: "2")], [.init(rid: "3")]],
                                 recv: [[.init(rid: "c")]]))),
        ("ice-ufrag:grS4", .iceUfrag("grS4")),
        ("ice-pwd:z/tiB84BX8WIpHQ/SiI7Y4WM", .icePwd("z/tiB84BX8WIpHQ/SiI7Y4WM")),
        ("ice-options:trickle", .iceOptions(["trickle"])),
        ("ice-options:trickle renomination", .iceOptions(["trickle", "renomination"])),
        ("ice-lite", .iceLite),
        ("fingerprint:sha-256 0A:5D:BB", .fingerprint(SDPFingerprint(hashFunction: "sha-256", value: "0A:5D:BB"))),
        ("setup:actpass", .setup(.actpass)),
        ("setup:active", .setup(.active)),
        ("setup:passive", .setup(.passive)),
        ("setup:holdconn", .setup(.holdconn)),
        ("candidate:76083615 1 udp 2122260223 127.0.0.1 47764 typ host generation 0 network-id 1 network-cost 50",
         .candidate(SDPCandidate(
            foundation: "76083615", component: 1, transport: "udp", priority: 2_122_260_223, address: "127.0.0.1", port: 47764,
            type: .host, extensions: [.init(name: "generation", value: "0"), .init(name: "network-id", value: "1"),
                                      .init(name: "network-cost", value: "50")]))),
        ("candidate:3 1 UDP 1679819007 198.51.100.7 41542 typ srflx raddr 10.0.0.2 rport 5000 ufrag abcd",
         .candidate(SDPCandidate(
            foundation: "3", component: 1, transport: "UDP", priority: 1_679_819_007, address: "198.51.100.7", port: 41542,
            type: .serverReflexive, relatedAddress: "10.0.0.2", relatedPort: 5000,
            extensions: [.init(name: "ufrag", value: "abcd")]))),
        ("candidate:2 1 tcp 1518280447 127.0.0.1 9 typ host tcptype active",
         .candidate(SDPCandidate(
            foundation: "2", transport: "tcp", priority: 1_518_280_447, address: "127.0.0.1", port: 9,
            extensions: [.init(name: "tcptype", value: "active")]))),
        ("end-of-candidates", .endOfCandidates),
        ("rtcp-mux", .rtcpMux),
        ("rtcp-rsize", .rtcpRsize),
        ("rtcp:9 IN IP4 0.0.0.0", .rtcp("9 IN IP4 0.0.0.0")),
        ("sendrecv", .direction(.sendrecv)),
        ("sendonly", .direction(.sendonly)),
        ("recvonly", .direction(.recvonly)),
        ("inactive", .direction(.inactive)),
        ("bundle-only", .bundleOnly),
        ("sctp-port:5000", .sctpPort(5000)),
        ("max-message-size:262144", .maxMessageSize(262_144)),
        ("rtcp-xr:rcvr-rtt=all", .other(name: "rtcp-xr", value: "rcvr-rtt=all")),
        ("framerate:30", .other(name: "framerate", value: "30")),
        ("x-google-flag:conference", .other(name: "x-google-flag", value: "conference")),
        ("recvonly-ish", .other(name: "recvonly-ish", value: nil)),
        ("empty-value:", .other(name: "empty-value", value: "")),
    ]

    @Test func everyVectorParsesAndWritesBack() throws {
        for (text, expected) in Self.vectors {
            let parsed = try SDPAttribute(parsing: text)
            #expect(parsed == expected, "\(text)")
            #expect(expected.text == text, "\(text)")
        }
    }

    @Test func everyTypedCaseHasAVector() {
        let names = Set(Self.vectors.map { $0.1.name })
        for name in ["group", "mid", "msid", "msid-semantic", "rtpmap", "fmtp", "rtcp-fb", "extmap", "extmap-allow-mixed",
                     "ssrc", "ssrc-group", "rid", "simulcast", "ice-ufrag", "ice-pwd", "ice-options", "ice-lite",
                     "fingerprint", "setup", "candidate", "end-of-candidates", "rtcp-mux", "rtcp-rsize", "rtcp",
                     "sendrecv", "sendonly", "recvonly", "inactive", "bundle-only", "sctp-port", "max-message-size"] {
            #expect(names.contains(name), "\(name)")
        }
    }

    /// Lines a typed case would write differently stay `.other`, byte for byte.
    @Test(arguments: [
        "rtpmap:096 VP8/90000", "rtpmap:96  VP8/90000", "ssrc:01 cname:x", "rtcp-mux:yes", "sendrecv:",
        "extmap:01 urn:x", "sctp-port:05000", "candidate:1 1 udp 1 127.0.0.1 09 typ host",
        "candidate:1 1 udp 1 127.0.0.1 9  typ host", "simulcast:send", "simulcast: send h", "ssrc-group:FID 1  2",
        "fingerprint:sha-256 AA:BB ", "fmtp:webrtc-datachannel max-message-size=100000",
    ])
    func nonCanonicalSpellingsSurviveAsOther(_ text: String) throws {
        let parsed = try SDPAttribute(parsing: text)
        guard case .other = parsed else {
            Issue.record("\(text) parsed as \(parsed)")
            return
        }
        #expect(parsed.text == text)
    }

    /// Odd spacing (a leading, trailing or doubled space between the fields a
    /// typed form parses) is neither an error nor typed with a stray space in
    /// a field: the line stays `.other`, byte for byte.
    @Test(arguments: [
        "rtcp-fb:96  nack", "rtcp-fb:96 ", "rtcp-fb: 96 nack", "rtcp-fb:*  transport-cc", "rtcp-fb:x  nack",
        "extmap:1  urn:ietf:params:rtp-hdrext:sdes:mid", "extmap:1 ", "extmap: 1 urn:x", "extmap:2/recvonly  urn:x",
        "ssrc:1  cname:x", "ssrc:1 ", "ssrc: 1 cname:x", "ssrc:1   msid:s t",
        "msid-semantic:  WMS", "msid-semantic: WMS  a", "msid-semantic: WMS ", "msid-semantic:WMS ",
        "rtpmap: 96 VP8/90000", "rtpmap:96 VP8/90000 ", "rtpmap:96 ",
        "group:BUNDLE  0", "group: BUNDLE 0", "group:BUNDLE 0 ", "group: ",
        "mid: 0", "mid:0 ", "mid: ", "msid: s t", "msid:s  t", "msid:s ",
        "ssrc-group:FID  1 2", "ssrc-group: FID 1", "rid:h  send", "rid:h send ", "rid: h send",
        "ice-ufrag: abc", "ice-pwd:abc ", "ice-options:trickle  renomination", "ice-options:trickle ",
        "fingerprint:sha-256  AA:BB", "fingerprint: sha-256 AA:BB", "setup: actpass", "setup:actpass ",
        "candidate: 1 1 udp 1 127.0.0.1 9 typ host", "candidate:1 1 udp 1 127.0.0.1 9 typ host ",
        "candidate:1 1 udp 1 127.0.0.1  typ host", "sctp-port: 5000", "max-message-size:262144 ",
    ])
    func oddSpacingKeepsTheLineAsOther(_ text: String) throws {
        let parsed: SDPAttribute
        do {
            parsed = try SDPAttribute(parsing: text)
        } catch {
            Issue.record("\(text.debugDescription) refused: \(error)")
            return
        }
        guard case .other = parsed else {
            Issue.record("\(text.debugDescription) parsed as \(parsed)")
            return
        }
        #expect(Array(parsed.text.utf8) == Array(text.utf8))
    }

    /// In a whole description, odd spacing neither refuses it nor yields a
    /// typed field with a stray space (an ssrc attribute named " cname").
    @Test func oddlySpacedLinesInADescriptionStayOther() throws {
        let text = "v=0\r\no=- 1 2 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n"
            + "a=rtpmap:96 VP8/90000\r\na=rtcp-fb:96  nack\r\na=rtcp-fb:96 \r\na=extmap:1  urn:ietf:params:rtp-hdrext:sdes:mid\r\n"
            + "a=ssrc:1  cname:x\r\na=ssrc:2 cname:y\r\n"
        let parsed = try SessionDescription(parsing: text)
        #expect(Array(parsed.text.utf8) == Array(text.utf8))
        let video = try #require(parsed.media.first)
        #expect(video.ssrcs == [SDPSSRCAttribute(ssrc: 2, attribute: "cname", value: "y")])
        #expect(video.rtcpFeedback(for: 96).isEmpty)
        #expect(video.extmaps.isEmpty)
        #expect(video.attributeValue("ssrc") == "1  cname:x")
    }

    /// Free text at the end of a typed attribute keeps its spaces as written.
    @Test func freeTextTailsKeepTheirSpacing() throws {
        #expect(try SDPAttribute(parsing: "rtcp-fb:100 ccm  tmmbr") ==
            .rtcpFeedback(SDPRTCPFeedback(payloadType: 100, type: "ccm", parameter: " tmmbr")))
        #expect(try SDPAttribute(parsing: "ssrc:1 msid:s  t") == .ssrc(SDPSSRCAttribute(ssrc: 1, attribute: "msid", value: "s  t")))
        #expect(try SDPAttribute(parsing: "extmap:1 urn:x  a ") == .extmap(SDPExtmap(id: 1, uri: "urn:x", attributes: " a ")))
        #expect(try SDPAttribute(parsing: "fmtp:96  apt=96") == .fmtp(SDPFormatParameters(payloadType: 96, parameters: " apt=96")))
    }

    @Test func fmtpPairsTrimSpacesAndKeepBareKeys() {
        let fmtp = SDPFormatParameters(payloadType: 100, parameters: "profile-id=2; x-google-min-bitrate=300;;flag")
        #expect(fmtp.pairs == [
            SDPFormatParameter(key: "profile-id", value: "2"), SDPFormatParameter(key: "x-google-min-bitrate", value: "300"),
            SDPFormatParameter(key: "flag", value: nil),
        ])
        #expect(fmtp["PROFILE-ID"] == "2")
        #expect(fmtp["flag"] == nil)
        #expect(fmtp["missing"] == nil)
        let built = SDPFormatParameters(payloadType: 111, pairs: [.init(key: "minptime", value: "10"), .init(key: "useinbandfec", value: "1")])
        #expect(built.value == "111 minptime=10;useinbandfec=1")
    }

    @Test func simulcastListsAndInvalidValues() throws {
        let simulcast = try #require(SDPSimulcast(value: "recv a;b send ~c"))
        #expect(simulcast.recv == [[.init(rid: "a")], [.init(rid: "b")]])
        #expect(simulcast.send == [[.init(rid: "c", paused: true)]])
        #expect(SDPSimulcast(value: "send a recv") == nil)
        #expect(SDPSimulcast(value: "send a send b") == nil)
        #expect(SDPSimulcast(value: "both a") == nil)
        #expect(SDPSimulcast(value: "send a;;b") == nil)
        #expect(SDPSimulcast(value: "send ~") == nil)
    }

    @Test func fingerprintDigest() {
        let digest: [UInt8] = [0x0A, 0x5D, 0xFF, 0x00]
        let fingerprint = SDPFingerprint(hashFunction: "sha-256", digest: digest)
        #expect(fingerprint.value == "0A:5D:FF:00")
        #expect(fingerprint.digest == digest)
        #expect(SDPFingerprint(hashFunction: "sha-256", value: "0a:5d").digest == [0x0A, 0x5D])
        #expect(SDPFingerprint(hashFunction: "sha-256", value: "+A:5D").digest == nil)
        #expect(SDPFingerprint(hashFunction: "sha-256", value: "0A5D").digest == nil)
    }

    @Test func directionAndSetupHelpers() {
        #expect(SDPDirection.sendonly.reversed == .recvonly)
        #expect(SDPDirection.inactive.reversed == .inactive)
        #expect(SDPDirection.sendrecv.sends && SDPDirection.sendrecv.receives)
        #expect(!SDPDirection.recvonly.sends)
        #expect(SDPSetupRole.actpass.answer == .passive)
        #expect(SDPSetupRole.passive.answer == .active)
    }

    @Test func trickledCandidateStringParses() throws {
        let candidate = try SDPCandidate(parsing: "1 2 udp 100 ::1 5000 typ relay raddr 0.0.0.0 rport 0")
        #expect(candidate.component == 2)
        #expect(candidate.type == .relay)
        #expect(candidate.relatedPort == 0)
        #expect(candidate.value == "1 2 udp 100 ::1 5000 typ relay raddr 0.0.0.0 rport 0")
    }
}
