import SDP
import Testing
import WebRTC

/// Later offers on the publisher connection (PROTOCOL.md section 3.2):
/// added, removed, inactive and recvonly m-lines, ICE restarts, DTLS role.
@Suite struct PublishRenegotiationTests {
    let transport = NegotiationFixture.transport

    func answer(_ text: String, previous: PublishAnswer?, version: UInt64 = 2) throws -> PublishAnswer {
        try PublishNegotiation.answer(
            offerText: text, transport: transport, sessionID: "4242", sessionVersion: version, previous: previous)
    }

    /// The aiortc offer plus a second video m-line (a screen share) with mid 2.
    func offerWithScreen(direction: String = "sendrecv") throws -> String {
        let base = try NegotiationFixture.aiortcOffer.text()
        let videoStart = try #require(base.range(of: "m=video"))
        let video = String(base[videoStart.lowerBound...])
            .replacingOccurrences(of: "a=mid:1", with: "a=mid:2")
            .replacingOccurrences(of: "a=sendrecv", with: "a=\(direction)")
            .replacingOccurrences(of: "1050465163", with: "11111")
            .replacingOccurrences(of: "2778497264", with: "22222")
        return base.replacingOccurrences(of: "a=group:BUNDLE 0 1", with: "a=group:BUNDLE 0 1 2") + video
    }

    @Test func addedTrack() throws {
        let first = try NegotiationFixture.aiortcOffer.answer()
        let second = try answer(offerWithScreen(), previous: first)
        #expect(second.sendingMIDs == ["0", "1", "2"])
        #expect(second.stoppedSending(since: first) == [])
        #expect(second.media(withMID: "2")?.remoteSSRCs.primary?.rawValue == 11111)
        #expect(second.media(withMID: "2")?.remoteSSRCs.rtx?.rawValue == 22222)
        #expect(second.bundleMIDs == ["0", "1", "2"])
        #expect(second.sdp.origin.sessionVersion == 2)
        #expect(!second.iceRestart)
        #expect(second.dtlsRole == .server)
    }

    @Test(arguments: ["inactive", "recvonly"])
    func trackStopsSending(direction: String) throws {
        let first = try answer(offerWithScreen(), previous: nil)
        let second = try answer(offerWithScreen(direction: direction), previous: first)
        #expect(second.sendingMIDs == ["0", "1"])
        #expect(second.stoppedSending(since: first) == ["2"])
        let screen = try #require(second.media(withMID: "2"))
        #expect(screen.isAccepted)
        #expect(!screen.remoteSends)
        #expect(second.sdp.media[2].direction == .inactive)
    }

    @Test func removedMLine() throws {
        let first = try answer(offerWithScreen(), previous: nil)
        // JSEP section 5.2.2: a removed transceiver's m-line has port 0 and leaves the BUNDLE group.
        let text = try offerWithScreen()
            .replacingOccurrences(of: "a=group:BUNDLE 0 1 2", with: "a=group:BUNDLE 0 1")
        let lastVideo = try #require(text.range(of: "m=video 60475", options: .backwards))
        let removed = text.replacingCharacters(in: lastVideo, with: "m=video 0")
        let second = try answer(removed, previous: first)
        #expect(second.media(withMID: "2")?.rejection == .offerRejected)
        #expect(second.stoppedSending(since: first) == ["2"])
        #expect(second.sdp.media[2].port == 0)
        #expect(second.bundleMIDs == ["0", "1"])
    }

    @Test func droppedOrReorderedMLinesAreRefused() throws {
        let first = try answer(offerWithScreen(), previous: nil)
        // The two-m-line offer after a three-m-line one: an m-line vanished.
        let dropped = negotiationError { _ = try answer(NegotiationFixture.aiortcOffer.text(), previous: first) }
        #expect(dropped?.code == 53403)
        // mids 1 and 2 swapped.
        let swapped = try offerWithScreen()
            .replacingOccurrences(of: "a=mid:1", with: "a=mid:X").replacingOccurrences(of: "a=mid:2", with: "a=mid:1")
            .replacingOccurrences(of: "a=mid:X", with: "a=mid:2")
        #expect(negotiationError { _ = try answer(swapped, previous: first) }?.code == 53403)
    }

    @Test func iceRestart() throws {
        let first = try NegotiationFixture.chromiumOffer.answer()
        let same = try answer(NegotiationFixture.chromiumOffer.text(), previous: first)
        #expect(!same.iceRestart)
        let restarted = try NegotiationFixture.chromiumOffer.text()
            .replacingOccurrences(of: "a=ice-ufrag:grS4", with: "a=ice-ufrag:nEw1")
            .replacingOccurrences(of: "a=ice-pwd:z/tiB84BX8WIpHQ/SiI7Y4WM", with: "a=ice-pwd:aNewPasswordForTheRestart")
        let second = try answer(restarted, previous: first)
        #expect(second.iceRestart)
        #expect(second.remote.ice == ICECredentials(ufrag: "nEw1", password: "aNewPasswordForTheRestart"))
    }

    @Test func dtlsRoles() throws {
        let text = try NegotiationFixture.aiortcOffer.text()
        let passive = try answer(text.replacingOccurrences(of: "a=setup:actpass", with: "a=setup:passive"), previous: nil)
        #expect(passive.dtlsRole == .client)
        #expect(passive.sdp.media.allSatisfy { $0.setup == .active })
        let active = try answer(text.replacingOccurrences(of: "a=setup:actpass", with: "a=setup:active"), previous: nil)
        #expect(active.dtlsRole == .server)
        #expect(active.sdp.media.allSatisfy { $0.setup == .passive })
        // A later actpass offer keeps the role already held (RFC 8842 section 5.5).
        let later = try answer(text, previous: passive)
        #expect(later.dtlsRole == .client)
        #expect(later.sdp.media.allSatisfy { $0.setup == .active })
    }
}
