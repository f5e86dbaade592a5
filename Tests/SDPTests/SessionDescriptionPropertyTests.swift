import SDP
import Testing

/// Random valid descriptions (seeded) survive write -> parse unchanged.
@Suite struct SessionDescriptionPropertyTests {
    @Test func randomDescriptionsRoundTrip() throws {
        var generator = RandomSDP(seed: 0x5D9_2026)
        for iteration in 0..<2000 {
            let description = generator.sessionDescription()
            let text = description.text
            let parsed: SessionDescription
            do {
                parsed = try SessionDescription(parsing: text)
            } catch {
                Issue.record("iteration \(iteration): \(error)\n\(text)")
                return
            }
            if parsed != description {
                Issue.record("iteration \(iteration): parse(write(x)) != x\n\(text)")
                return
            }
            #expect(Array(parsed.text.utf8) == Array(text.utf8))
        }
    }

    @Test func randomAttributesRoundTrip() throws {
        var generator = RandomSDP(seed: 42)
        for _ in 0..<5000 {
            let attribute = generator.attribute()
            let parsed = try SDPAttribute(parsing: attribute.text)
            #expect(parsed == attribute, "\(attribute.text)")
        }
    }
}

/// Builds random descriptions within the grammar the writer promises to
/// read back: fields that are single tokens never hold a space, no text holds
/// a line break, and `.other` never uses a typed attribute's name.
struct RandomSDP {
    var rng: SplitMix64

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    static let tokenCharacters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.+/{}@#*é✓")
    static let textCharacters = tokenCharacters + Array("   :=;,~<>()\u{301}\t")

    mutating func int<T: FixedWidthInteger>(_ range: ClosedRange<T>) -> T { T.random(in: range, using: &rng) }
    mutating func bool() -> Bool { Bool.random(using: &rng) }
    mutating func maybe<T>(_ make: (inout RandomSDP) -> T) -> T? { bool() ? make(&self) : nil }

    mutating func token(_ characters: [Character] = tokenCharacters, excluding: Set<Character> = []) -> String {
        let allowed = characters.filter { !excluding.contains($0) }
        let count = int(1...12)
        return String((0..<count).map { _ in allowed[int(0...(allowed.count - 1))] })
    }

    mutating func tokens(_ range: ClosedRange<Int>, excluding: Set<Character> = []) -> [String] {
        (0..<int(range)).map { _ in token(excluding: excluding) }
    }

    /// Free text: spaces, colons, combining marks; no line breaks. May be empty.
    mutating func text() -> String {
        let count = int(0...24)
        return String((0..<count).map { _ in Self.textCharacters[int(0...(Self.textCharacters.count - 1))] })
    }

    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }

    mutating func sessionDescription() -> SessionDescription {
        SessionDescription(
            version: 0,
            origin: SDPOrigin(
                username: token(), sessionID: String(int(UInt64(0)...UInt64.max)), sessionVersion: int(0...UInt64.max),
                networkType: "IN", addressType: pick(["IP4", "IP6"]), address: token()),
            sessionName: text(),
            information: maybe { $0.text() },
            uri: maybe { $0.text() },
            emails: (0..<int(0...2)).map { _ in text() },
            phones: (0..<int(0...2)).map { _ in text() },
            connection: maybe { $0.connection() },
            bandwidths: (0..<int(0...2)).map { _ in bandwidth() },
            timings: (0..<int(1...2)).map { _ in
                SDPTiming(start: int(0...UInt64.max), stop: int(0...UInt64.max), repeats: (0..<int(0...1)).map { _ in text() })
            },
            timeZones: maybe { $0.text() },
            encryptionKey: maybe { $0.text() },
            attributes: (0..<int(0...6)).map { _ in attribute() },
            media: (0..<int(0...4)).map { _ in media() })
    }

    mutating func connection() -> SDPConnection {
        SDPConnection(networkType: "IN", addressType: pick(["IP4", "IP6"]), address: token())
    }

    mutating func bandwidth() -> SDPBandwidth {
        SDPBandwidth(type: token(excluding: [":"]), value: int(0...UInt64.max))
    }

    mutating func media() -> MediaDescription {
        MediaDescription(
            kind: pick([.audio, .video, .application, .other("text"), .other("message")]),
            port: int(0...UInt16.max), numberOfPorts: maybe { $0.int(0...UInt16.max) }, proto: token(),
            formats: tokens(1...6), information: maybe { $0.text() }, connection: maybe { $0.connection() },
            bandwidths: (0..<int(0...2)).map { _ in bandwidth() }, encryptionKey: maybe { $0.text() },
            attributes: (0..<int(0...12)).map { _ in attribute() })
    }

    mutating func payloadType() -> UInt8 { int(0...127) }

    mutating func attribute() -> SDPAttribute {
        switch int(0...31) {
        case 0: return .group(SDPGroup(semantics: token(), mids: tokens(0...4)))
        case 1: return .mid(token())
        case 2: return .msid(SDPMediaStreamID(streamID: token(), trackID: maybe { $0.token() }))
        case 3: return .msidSemantic(SDPMSIDSemantic(semantic: token(), identifiers: tokens(0...3), spaceAfterColon: bool()))
        case 4:
            return .rtpmap(SDPRTPMap(payloadType: payloadType(), encoding: token(excluding: ["/"]), clockRate: int(0...UInt32.max),
                                     channels: maybe { $0.int(0...UInt16.max) }))
        case 5: return .fmtp(SDPFormatParameters(payloadType: payloadType(), parameters: text()))
        case 6: return .rtcpFeedback(SDPRTCPFeedback(payloadType: maybe { $0.payloadType() }, type: token(), parameter: maybe { $0.text() }))
        case 7:
            return .extmap(SDPExtmap(id: int(0...UInt16.max), direction: maybe { $0.pick(SDPDirection.allCases) }, uri: token(),
                                     attributes: maybe { $0.text() }))
        case 8: return .extmapAllowMixed
        case 9: return .ssrc(SDPSSRCAttribute(ssrc: int(0...UInt32.max), attribute: token(excluding: [":"]), value: maybe { $0.text() }))
        case 10: return .ssrcGroup(SDPSSRCGroup(semantics: token(), ssrcs: (0..<int(0...4)).map { _ in int(0...UInt32.max) }))
        case 11: return .rid(SDPRID(id: token(), direction: pick([.send, .recv]), restrictions: maybe { $0.token() }))
        case 12:
            func layers(_ g: inout RandomSDP) -> [[SDPSimulcast.Layer]] {
                (0..<g.int(1...3)).map { _ in
                    (0..<g.int(1...2)).map { _ in SDPSimulcast.Layer(rid: g.token(excluding: [",", ";", "~"]), paused: g.bool()) }
                }
            }
            return .simulcast(SDPSimulcast(send: layers(&self), recv: bool() ? layers(&self) : []))
        case 13: return .iceUfrag(token())
        case 14: return .icePwd(token())
        case 15: return .iceOptions(tokens(1...3))
        case 16: return .iceLite
        case 17: return .fingerprint(SDPFingerprint(hashFunction: token(), value: token()))
        case 18: return .setup(pick(SDPSetupRole.allCases))
        case 19:
            let related = bool()
            return .candidate(SDPCandidate(
                foundation: token(), component: int(0...UInt16.max), transport: pick(["udp", "tcp", "UDP"]),
                priority: int(0...UInt32.max), address: token(), port: int(0...UInt16.max),
                type: pick([.host, .serverReflexive, .peerReflexive, .relay, SDPCandidateType(rawValue: token())]),
                relatedAddress: related ? token() : nil, relatedPort: related ? int(0...UInt16.max) : nil,
                extensions: (0..<int(0...4)).map { _ in
                    SDPCandidateExtension(name: pick(["generation", "network-id", "network-cost", "tcptype", "ufrag"]), value: token())
                }))
        case 20: return .endOfCandidates
        case 21: return .rtcpMux
        case 22: return .rtcpRsize
        case 23: return .rtcp(text())
        case 24: return .direction(pick(SDPDirection.allCases))
        case 25: return .bundleOnly
        case 26: return .sctpPort(int(0...UInt16.max))
        case 27: return .maxMessageSize(int(0...UInt64.max))
        default:
            return .other(name: pick(["rtcp-xr", "framerate", "x-google-flag", "label", "identity", "ptime", ""]),
                          value: maybe { $0.text() })
        }
    }
}
