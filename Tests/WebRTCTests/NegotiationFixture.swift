import Foundation
import Packets
import SDP
import Testing
import WebRTC

/// The real offers and answers in Fixtures/, and a server transport to
/// answer them with.
enum NegotiationFixture: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case chromiumOffer = "chromium-offer"
    case aiortcOffer = "aiortc-offer"
    case firefoxOffer = "firefox-offer"
    case webrtcbinOffer = "webrtcbin-offer"
    case chromiumAnswer = "chromium-answer"
    case aiortcAnswer = "aiortc-answer"
    case chromiumSimulcastOffer = "chromium-simulcast-offer"
    case firefoxSimulcastOffer = "firefox-simulcast-offer"

    static let offers: [NegotiationFixture] = [
        .chromiumOffer, .aiortcOffer, .firefoxOffer, .webrtcbinOffer, .chromiumSimulcastOffer, .firefoxSimulcastOffer,
    ]

    var testDescription: String { rawValue }

    func text() throws -> String {
        let url = try #require(Bundle.module.url(forResource: rawValue, withExtension: "sdp", subdirectory: "Fixtures"))
        return try #require(String(data: Data(contentsOf: url), encoding: .utf8))
    }

    func parsed() throws -> SessionDescription {
        try SessionDescription(parsing: text())
    }

    /// The server side: two announced addresses on port 7882, UDP and
    /// ICE-TCP (passive) each.
    static let transport = NegotiationTransport(
        ice: ICECredentials(ufrag: "srvUfrag", password: "serverPassword0123456789"),
        fingerprint: (0..<32).map { String(format: "%02X", $0 * 7 % 256) }.joined(separator: ":"),
        candidates: [STUNAddress(ipv4: 192, 0, 2, 10, port: 7882), STUNAddress(ipv6High: 0x2001_0db8_0000_0000, low: 1, port: 7882)],
        tcpCandidates: [STUNAddress(ipv4: 192, 0, 2, 10, port: 7882), STUNAddress(ipv6High: 0x2001_0db8_0000_0000, low: 1, port: 7882)])

    /// Answers this fixture with `transport`.
    func answer(previous: PublishAnswer? = nil) throws -> PublishAnswer {
        try PublishNegotiation.answer(
            offerText: text(), transport: Self.transport, sessionID: "4242", sessionVersion: 1, previous: previous)
    }
}

extension MediaDescription {
    /// The `a=` lines' text, for readable expectations.
    var lines: [String] { attributes.map(\.text) }
}

/// Runs `body` and returns the NegotiationError it throws (nil if none;
/// another error is recorded as an issue).
func negotiationError(_ body: () throws -> Void) -> NegotiationError? {
    do {
        try body()
        return nil
    } catch let error as NegotiationError {
        return error
    } catch {
        Issue.record("not a NegotiationError: \(error)")
        return nil
    }
}
