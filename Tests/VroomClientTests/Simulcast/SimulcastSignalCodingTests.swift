import Foundation
import Testing

@testable import VroomClient

/// The JSON of PROTOCOL.md section 7, both ways: what the SDK sends
/// (bandwidthProfile, tracks entries with priority and layers, the four
/// track requests) is checked byte for byte (keys sorted), and what the
/// server sends (trackSwitchedOff/On, publisherLayers) is decoded, with
/// the malformed variants refused.
@Suite struct SimulcastSignalCodingTests {
    @Test func joinCarriesTheBandwidthProfile() {
        let full = BandwidthProfileOptions(
            video: VideoBandwidthProfileOptions(
                mode: .collaboration, dominantSpeakerPriority: .standard, maxSubscriptionBitrate: 2_500_000,
                trackSwitchOffMode: .predicted, clientTrackSwitchOffControl: .manual, contentPreferencesMode: .manual))
        #expect(
            ClientSignal.join(id: "1", room: "r", resume: nil, subscribeAll: true, bandwidthProfile: full).text
                == #"{"bandwidthProfile":{"video":{"clientTrackSwitchOffControl":"manual","contentPreferencesMode":"manual","dominantSpeakerPriority":"standard","maxSubscriptionBitrate":2500000,"mode":"collaboration","trackSwitchOffMode":"predicted"}},"id":"1","room":"r","rules":[{"all":true,"type":"include"}],"type":"join"}"#
        )
        // Fields left nil are left out: the server applies Twilio's defaults.
        let partial = BandwidthProfileOptions(video: VideoBandwidthProfileOptions(mode: .grid))
        #expect(
            ClientSignal.join(id: "2", room: nil, resume: nil, subscribeAll: true, bandwidthProfile: partial).text
                == #"{"bandwidthProfile":{"video":{"mode":"grid"}},"id":"2","rules":[{"all":true,"type":"include"}],"type":"join"}"#
        )
        // No profile: no key at all (an older server sees the join it knew).
        #expect(!ClientSignal.join(id: "3", room: nil, resume: nil, subscribeAll: true).text.contains("bandwidthProfile"))
    }

    @Test func publishTracksCarryPriorityAndLayers() {
        let tracks: [ClientSignal.PublishTrack] = [
            .init(mid: "0", name: "mic", kind: .audio, enabled: true),
            .init(
                mid: "1", name: "camera", kind: .video, enabled: true, priority: .high,
                layers: [
                    .init(rid: "q", width: 320, height: 180), .init(rid: "h", width: 640, height: 360),
                    .init(rid: "f", width: 1280, height: 720),
                ]),
        ]
        #expect(
            ClientSignal.publish(id: "4", sdp: "v=0", tracks: tracks).text
                == #"{"id":"4","sdp":"v=0","tracks":[{"enabled":true,"kind":"audio","mid":"0","name":"mic"},{"enabled":true,"kind":"video","layers":[{"height":180,"rid":"q","width":320},{"height":360,"rid":"h","width":640},{"height":720,"rid":"f","width":1280}],"mid":"1","name":"camera","priority":"high"}],"type":"publish"}"#
        )
    }

    @Test func trackRequestsEncodeAsTheProtocolWritesThem() {
        let cases: [(ClientSignal, String)] = [
            (.setTrackPriority(id: "5", trackSid: "MTa", priority: .low),
             #"{"id":"5","priority":"low","trackSid":"MTa","type":"setTrackPriority"}"#),
            // null clears the override: it must be written, not left out.
            (.setTrackPriority(id: "6", trackSid: "MTa", priority: nil),
             #"{"id":"6","priority":null,"trackSid":"MTa","type":"setTrackPriority"}"#),
            (.setContentPreferences(id: "7", trackSid: "MTa", renderDimensions: VideoDimensions(width: 640, height: 360)),
             #"{"id":"7","renderDimensions":{"height":360,"width":640},"trackSid":"MTa","type":"setContentPreferences"}"#),
            (.switchOffTrack(id: "8", trackSid: "MTa"), #"{"id":"8","trackSid":"MTa","type":"switchOffTrack"}"#),
            (.switchOnTrack(id: "9", trackSid: "MTa"), #"{"id":"9","trackSid":"MTa","type":"switchOnTrack"}"#),
        ]
        for (signal, expected) in cases {
            #expect(signal.text == expected)
        }
    }

    @Test(arguments: TrackSwitchOffReason.allCases)
    func trackSwitchedOffReadsEveryReason(_ reason: TrackSwitchOffReason) throws {
        let signal = try ServerSignal(json: #"{"type":"trackSwitchedOff","trackSid":"MTa","reason":"\#(reason.rawValue)"}"#)
        guard case .trackSwitchedOff(let sid, let text) = signal else {
            Issue.record("trackSwitchedOff: \(signal)")
            return
        }
        #expect(sid == "MTa" && text.flatMap(TrackSwitchOffReason.init(rawValue:)) == reason)
    }

    @Test func switchOnAndPublisherLayersDecode() throws {
        let on = try ServerSignal(json: #"{"type":"trackSwitchedOn","trackSid":"MTb"}"#)
        guard case .trackSwitchedOn(let sid) = on else {
            Issue.record("trackSwitchedOn: \(on)")
            return
        }
        #expect(sid == "MTb")
        let layers = try ServerSignal(json: #"{"type":"publisherLayers","trackSid":"MTc","active":["q","h"]}"#)
        guard case .publisherLayers(let track, let active) = layers else {
            Issue.record("publisherLayers: \(layers)")
            return
        }
        #expect(track == "MTc" && active == ["q", "h"])
        let none = try ServerSignal(json: #"{"type":"publisherLayers","trackSid":"MTc","active":[]}"#)
        guard case .publisherLayers(_, let empty) = none else {
            Issue.record("publisherLayers: \(none)")
            return
        }
        #expect(empty.isEmpty)
        // A switch-off without a reason still switches off.
        let bare = try ServerSignal(json: #"{"type":"trackSwitchedOff","trackSid":"MTd"}"#)
        guard case .trackSwitchedOff("MTd", nil) = bare else {
            Issue.record("trackSwitchedOff: \(bare)")
            return
        }
    }

    @Test func malformedSection7MessagesAreRefusedWithTheField() {
        let cases = [
            (#"{"type":"trackSwitchedOff","reason":"network-congestion"}"#, "trackSid is missing"),
            (#"{"type":"trackSwitchedOn","trackSid":7}"#, "trackSid is not a String"),
            (#"{"type":"publisherLayers","trackSid":"MTa"}"#, "active is missing"),
            (#"{"type":"publisherLayers","trackSid":"MTa","active":"q"}"#, "active is not a"),
        ]
        for (text, expected) in cases {
            #expect {
                try ServerSignal(json: text)
            } throws: { error in
                "\(error)".contains(expected)
            }
        }
    }
}
