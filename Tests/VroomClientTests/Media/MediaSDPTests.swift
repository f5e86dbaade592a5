import Packets
import SDP
import Testing
import WebRTC

@testable import VroomClient

@Suite struct MediaSDPTests {
    let certificate: DTLSCertificate
    init() throws { certificate = try DTLSCertificate.generate() }

    func writer(ice: ICECredentials = ICECredentials(ufrag: "abcd", password: "0123456789abcdefghijklmn")) -> PublishOfferWriter {
        PublishOfferWriter(
            ice: ice, fingerprint: certificate.fingerprint, cname: "cname", streamID: "stream", sessionID: "42",
            sessionVersion: 1)
    }

    var slots: [PublishOfferWriter.Slot] {
        [
            .init(mid: "0", kind: .audio, trackName: "mic", ssrc: SSRC(1111)),
            .init(mid: "1", kind: .video, trackName: "camera", ssrc: SSRC(2222)),
            .init(mid: "2", kind: .video, trackName: nil, ssrc: SSRC(3333)),
        ]
    }

    var transport: NegotiationTransport {
        NegotiationTransport(
            ice: ICECredentials(ufrag: "srvr", password: "serverpasswordserverpass"), fingerprint: certificate.fingerprint,
            candidates: [STUNAddress(ipv4: 127, 0, 0, 1, port: 7882)])
    }

    /// The server's own negotiation accepts our offer: Opus and VP8 with
    /// the feedback and extensions we asked for, the SSRCs we listed, and
    /// the removed track's m-line kept inactive.
    @Test func publishOfferIsAcceptedByTheServersNegotiation() throws {
        let text = writer().description(slots: slots).text
        let parsed = try SessionDescription(parsing: text)
        #expect(parsed.bundleGroups.first?.mids == ["0", "1", "2"])
        let answer = try PublishNegotiation.answer(
            offerText: text, transport: transport, sessionID: "1", sessionVersion: 1)
        try answer.requireCodecs(forMIDs: ["0", "1"])
        #expect(answer.dtlsRole == .server)  // we said actpass: the server takes passive
        #expect(answer.text.contains("a=setup:passive"))
        let audio = try #require(answer.media(withMID: "0"))
        let video = try #require(answer.media(withMID: "1"))
        #expect(audio.codec?.payloadType == 111)
        #expect(video.codec?.payloadType == 96)
        #expect(video.codec?.rtxPayloadType == nil)
        #expect(video.feedback.contains([.nack, .pli, .fir, .transportCC]))
        #expect(audio.headerExtensions == NegotiatedHeaderExtensions(mid: 4, audioLevel: 1, absSendTime: 2, transportCC: 3))
        #expect(video.headerExtensions.mid == 4 && video.headerExtensions.audioLevel == nil)
        #expect(audio.remoteSSRCs.primary == SSRC(1111))
        #expect(video.remoteSSRCs.primary == SSRC(2222))
        #expect(answer.sendingMIDs == ["0", "1"])
        #expect(answer.media(withMID: "2")?.remoteDirection == .inactive)
        #expect(answer.remote.fingerprint == certificate.fingerprint)
        #expect(text.contains("a=fmtp:111 minptime=10;useinbandfec=1"))
        #expect(text.contains("a=msid:stream camera"))

        // The engine reads the answer back: transport and extension IDs.
        let server = try ServerDescription(parsing: answer.text)
        #expect(server.remote.ice == transport.ice)
        #expect(server.candidates == [STUNAddress(ipv4: 127, 0, 0, 1, port: 7882)])
        #expect(try server.target(bindHost: "127.0.0.1", override: nil) == STUNAddress(ipv4: 127, 0, 0, 1, port: 7882))
        #expect(server.media.first { $0.mid == "1" }?.payloadType == 96)

        // A renegotiation with new ICE credentials is an ICE restart to the server.
        let restart = writer(ice: ICECredentials(ufrag: "efgh", password: "zyxwvutsrqponmlkjihgfedc")).description(slots: slots).text
        let second = try PublishNegotiation.answer(
            offerText: restart, transport: transport, sessionID: "1", sessionVersion: 2, previous: answer)
        #expect(second.iceRestart)
    }

    /// Our answer to a server subscriber offer parses with the server's own
    /// `SubscriberOffer.parseAnswer`: recvonly, the offered codecs with
    /// video's RTX (so the server can probe us), setup active (we are the DTLS client), the inactive m-line inactive.
    @Test func subscriberAnswerIsAcceptedByTheServer() throws {
        let offer = try #require(
            try SubscriberOffer(
                slots: [
                    SubscriberOfferSlot(mid: "0", kind: .audio, track: SubscriberOfferTrack(participantSID: "PA1", trackSID: "MT1", ssrc: SSRC(10))),
                    SubscriberOfferSlot(
                        mid: "1", kind: .video,
                        track: SubscriberOfferTrack(participantSID: "PA1", trackSID: "MT2", ssrc: SSRC(20), rtxSSRC: SSRC(21))),
                    SubscriberOfferSlot(mid: "2", kind: .video),
                ],
                transport: transport, sessionID: "9", sessionVersion: 1))
        let server = try ServerDescription(parsing: offer.text)
        #expect(server.media.map(\.ssrc) == [SSRC(10), SSRC(20), nil])
        #expect(server.media.map(\.rtxSSRC) == [nil, SSRC(21), nil])
        #expect(server.media.map(\.rtxPayloadType) == [nil, 97, 97])
        let ice = ICECredentials(ufrag: "wxyz", password: "0123456789abcdefghijklmn")
        let answer = SubscribeAnswerWriter(ice: ice, fingerprint: certificate.fingerprint, sessionID: "5", sessionVersion: 1)
            .answer(to: server)
        let parsed = try offer.parseAnswer(answer.text)
        #expect(parsed.dtlsRole == .server)
        #expect(parsed.remote.ice == ice)
        #expect(parsed.media.map(\.remoteDirection) == [.recvonly, .recvonly, .inactive])
        #expect(parsed.media[0].codec?.payloadType == 111)
        #expect(parsed.media[1].codec?.payloadType == 96)
        #expect(parsed.media[1].codec?.rtxPayloadType == SubscriberOffer.rtxPayloadType)
        #expect(answer.text.contains("a=fmtp:97 apt=96"))
        #expect(parsed.media[1].feedback.contains([.nack, .pli]))
        #expect(parsed.media[0].headerExtensions.audioLevel == 1)
        #expect(answer.text.contains("a=setup:active"))
    }

    @Test func unparseableServerDescriptionIs53402() {
        #expect(throws: MediaEngineError.self) { try ServerDescription(parsing: "v=0\r\nbogus") }
        do {
            _ = try ServerDescription(parsing: "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n")
            Issue.record("accepted a description without media")
        } catch {
            #expect(error.code == 53402)
        }
    }
}
