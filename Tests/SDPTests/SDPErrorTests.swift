import SDP
import Testing

@Test func sdpErrorNamesTheLine() {
    #expect(SDPError(line: 3, "bad").description == "SDP line 3: bad")
    #expect(SDPError(line: 0, "empty").description == "SDP: empty")
}

/// Malformed descriptions are refused with the 1-based number of the guilty line.
@Suite struct SessionDescriptionErrorTests {
    static let head = "v=0\r\no=- 1 2 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n"

    static func lineOfError(_ text: String) -> (Int, String)? {
        do {
            _ = try SessionDescription(parsing: text)
            return nil
        } catch {
            return (error.line, error.reason)
        }
    }

    @Test(arguments: [
        // (description, line expected in the error, a word the reason must contain)
        ("", 0, "v="),
        ("\r\n\r\n", 1, "v="),
        ("o=- 1 2 IN IP4 0.0.0.0\r\n", 1, "v="),
        ("v=0\r\nnot a line\r\n", 2, "<letter>="),
        ("v=0\r\nO=- 1 2 IN IP4 0.0.0.0\r\n", 2, "<letter>="),
        ("v=0\r\no\r\n", 2, "<letter>="),
        ("v=x\r\n", 1, "v="),
        ("v=1\r\no=- 1 2 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n", 1, "v=0"),
        ("v=2\r\n", 1, "v=0"),
        ("v=0\r\nv=0\r\n", 2, "second v="),
        ("v=0\r\no=- 1 2 IN IP4\r\n", 2, "o="),
        ("v=0\r\no=- 1 two IN IP4 0.0.0.0\r\n", 2, "o="),
        ("v=0\r\no=- 1 2  IN IP4 0.0.0.0\r\n", 2, "o="),
        ("v=0\r\no=- 1 2 IN IP4 0.0.0.0\r\ns=-\r\n", 0, "t="),
        ("v=0\r\no=- 1 2 IN IP4 0.0.0.0\r\nt=0 0\r\n", 0, "s="),
        ("v=0\r\ns=-\r\nt=0 0\r\n", 0, "o="),
        ("v=0\r\no=- 1 2 IN IP4 0.0.0.0\r\ns=-\r\ns=again\r\nt=0 0\r\n", 4, "second s="),
        ("v=0\r\no=- 1 2 IN IP4 0.0.0.0\r\ns=-\r\nr=7d 1h 0 25h\r\nt=0 0\r\n", 4, "r="),
        (head + "x=unknown\r\n", 5, "unknown line type"),
        (head + "t=0\r\n", 5, "t="),
        (head + "c=IN IP4\r\n", 5, "c="),
        (head + "b=AS\r\n", 5, "b="),
        (head + "b=AS:fast\r\n", 5, "b="),
        (head + "m=audio\r\n", 5, "m="),
        (head + "m=audio 9\r\n", 5, "m="),
        (head + "m=audio 9 RTP/AVP\r\n", 5, "m="),
        (head + "a=mid:0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\nm=audio 0 UDP/TLS/RTP/SAVPF\r\n", 7, "m="),
        (head + "m=audio 70000 RTP/AVP 0\r\n", 5, "port"),
        (head + "m=audio -1 RTP/AVP 0\r\n", 5, "port"),
        (head + "m=audio 9/x RTP/AVP 0\r\n", 5, "ports"),
        (head + "m=audio 09 RTP/AVP 0\r\n", 5, "canonical"),
        (head + "m=audio 9 RTP/AVP  0\r\n", 5, "m="),
        (head + "m=audio 9 RTP/AVP 0\r\nt=0 0\r\n", 6, "media section"),
        (head + "m=audio 9 RTP/AVP 0\r\nc=IN IP4 1.2.3.4\r\nc=IN IP4 1.2.3.4\r\n", 7, "second c="),
        (head + "m=audio 9 RTP/AVP 0\r\ni=a\r\ni=b\r\n", 7, "second i="),
        (head + "m=audio 9 RTP/AVP 0\r\nk=a\r\nk=b\r\n", 7, "second k="),
        (head + "m=audio 9 RTP/AVP 0\r\nc=IN IP4\r\n", 6, "c="),
        (head + "m=audio 9 RTP/AVP 0\r\nb=AS:x\r\n", 6, "b="),
        (head + "m=audio 9 RTP/AVP 0\r\nb=AS:01\r\n", 6, "canonical"),
        (head + "m=audio 9 RTP/AVP 0\r\nu=x\r\n", 6, "media section"),
        (head + "i=a\r\ni=b\r\n", 6, "second i="),
        (head + "c=IN IP4 1.2.3.4\r\nc=IN IP4 1.2.3.4\r\n", 6, "second c="),
        (head + "k=a\r\nk=b\r\n", 6, "second k="),
        (head + "b=AS:01\r\n", 5, "canonical"),
        (head + "m=audio 9 RTP/AVP 0\r\na=rtpmap:0 PCMU\r\n", 6, "rtpmap"),
        (head + "m=audio 9 RTP/AVP 0\r\na=rtpmap:200 PCMU/8000\r\n", 6, "rtpmap"),
        (head + "m=audio 9 RTP/AVP 0\r\na=rtpmap:x PCMU/8000\r\n", 6, "rtpmap"),
        (head + "m=audio 9 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000/two\r\n", 6, "channel"),
        (head + "m=audio 9 RTP/AVP 0\r\na=candidate:1 1 udp 1 127.0.0.1 9 host\r\n", 6, "candidate"),
        (head + "m=audio 9 RTP/AVP 0\r\na=candidate:1 1 udp 1 127.0.0.1 99999 typ host\r\n", 6, "candidate"),
        (head + "m=audio 9 RTP/AVP 0\r\na=candidate:1 1 udp 1 127.0.0.1 9 typ host generation\r\n", 6, "no value"),
        (head + "m=audio 9 RTP/AVP 0\r\na=candidate:1 1 udp 1 1.1.1.1 9 typ srflx raddr 0.0.0.0 rport x\r\n", 6, "rport"),
        (head + "a=setup:maybe\r\n", 5, "setup"),
        (head + "a=fingerprint:sha-256\r\n", 5, "fingerprint"),
        (head + "a=extmap:x urn:a\r\n", 5, "extmap"),
        (head + "a=extmap:1/sideways urn:a\r\n", 5, "direction"),
        (head + "a=extmap:1\r\n", 5, "extmap"),
        (head + "a=ssrc:123\r\n", 5, "ssrc"),
        (head + "a=ssrc:1 :x\r\n", 5, "ssrc"),
        (head + "a=rtpmap:abc\r\n", 5, "rtpmap"),
        (head + "a=ssrc:99999999999 cname:x\r\n", 5, "ssrc"),
        (head + "a=ssrc-group:FID 1 x\r\n", 5, "ssrc-group"),
        (head + "a=rtcp-fb:96\r\n", 5, "rtcp-fb"),
        (head + "a=rtcp-fb:x nack\r\n", 5, "rtcp-fb"),
        (head + "a=rid:h sideways\r\n", 5, "rid"),
        (head + "a=mid:\r\n", 5, "mid"),
        (head + "a=group:\r\n", 5, "group"),
        (head + "a=msid:\r\n", 5, "msid"),
        (head + "a=sctp-port:x\r\n", 5, "sctp-port"),
        (head + "a=max-message-size:-1\r\n", 5, "max-message-size"),
        (head + "a=fmtp:96\r\n", 5, "fmtp"),
        ("v=0\no=- 1 2 IN IP4 0.0.0.0\ns=-\nt=0 0\nm=video 9 RTP/AVP 96\na=rtpmap:96 VP8\n", 6, "rtpmap"),
    ] as [(String, Int, String)])
    func malformedLinesAreRefusedWithTheirLineNumber(_ text: String, _ line: Int, _ word: String) throws {
        let (errorLine, reason) = try #require(Self.lineOfError(text), "accepted: \(text.debugDescription)")
        #expect(errorLine == line, "\(reason)")
        #expect(reason.contains(word), "\(reason)")
    }

    @Test func minimalDescriptionParses() throws {
        let parsed = try SessionDescription(parsing: Self.head)
        #expect(parsed.media.isEmpty)
        #expect(parsed.text == Self.head)
        // A last line without a line ending and blank lines are accepted.
        let loose = try SessionDescription(parsing: "v=0\n\no=- 1 2 IN IP4 0.0.0.0\r\ns=-\nt=0 0")
        #expect(loose == parsed)
    }
}
