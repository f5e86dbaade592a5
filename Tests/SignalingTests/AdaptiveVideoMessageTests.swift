import Foundation
import Rooms
import Testing

@testable import Signaling

/// The messages of PROTOCOL.md section 7 (simulcast and adaptive video),
/// verbatim where the protocol gives an example, both ways.
@Suite struct AdaptiveVideoMessageTests {
    @Test func joinCarriesTheBandwidthProfile() {
        let frame = #"""
            {"type":"join","id":"1","room":"r",
             "bandwidthProfile":{"video":{"mode":"collaboration","dominantSpeakerPriority":"standard",
              "maxSubscriptionBitrate":null,"trackSwitchOffMode":"predicted",
              "clientTrackSwitchOffControl":"auto","contentPreferencesMode":"auto"}}}
            """#
        let profile = BandwidthProfile(
            video: .init(
                mode: .collaboration, dominantSpeakerPriority: .standard, maxSubscriptionBitrate: nil,
                trackSwitchOffMode: .predicted, clientTrackSwitchOffControl: .auto, contentPreferencesMode: .auto))
        #expect(SignalingCodec.decode(frame) == .request(.join(.init(room: "r", bandwidthProfile: profile)), id: "1"))
        #expect(!profile.allowsManualSwitchOff)
        let manual = #"{"type":"join","bandwidthProfile":{"video":{"clientTrackSwitchOffControl":"manual"}}}"#
        guard case .request(.join(let join), _) = SignalingCodec.decode(manual) else {
            Issue.record("not a join")
            return
        }
        #expect(join.bandwidthProfile?.allowsManualSwitchOff == true)
    }

    @Test func anUnknownProfileValueIs53003() {
        for frame in [
            #"{"type":"join","id":"1","bandwidthProfile":{"video":{"mode":"theatre"}}}"#,
            #"{"type":"join","id":"1","bandwidthProfile":{"video":{"clientTrackSwitchOffControl":true}}}"#,
            #"{"type":"join","id":"1","bandwidthProfile":{"video":{"dominantSpeakerPriority":"urgent"}}}"#,
        ] {
            guard case .invalid(let id, let error, _) = SignalingCodec.decode(frame) else {
                Issue.record("accepted: \(frame)")
                continue
            }
            #expect(id == "1")
            #expect(error.errorMessage(id: id) == .error(id: "1", code: .signalingIncomingMessageInvalid, message: error.message))
        }
    }

    @Test func publishTracksCarryPriorityAndLayers() {
        let frame = #"""
            {"type":"publish","id":"2","sdp":"x","tracks":[{"mid":"1","name":"screen","kind":"video","priority":"high",
             "layers":[{"rid":"q","width":320,"height":180},{"rid":"h","width":640,"height":360},{"rid":"f"}]}]}
            """#
        let track = ClientMessage.TrackDescription(
            mid: "1", name: "screen", kind: "video", priority: .high,
            layers: [.init(rid: "q", width: 320, height: 180), .init(rid: "h", width: 640, height: 360), .init(rid: "f")])
        #expect(SignalingCodec.decode(frame) == .request(.publish(.init(sdp: "x", tracks: [track])), id: "2"))
    }

    @Test func subscriberRequests() {
        #expect(
            SignalingCodec.decode(#"{"type":"setTrackPriority","id":"3","trackSid":"MT1","priority":"high"}"#)
                == .request(.setTrackPriority(trackSid: "MT1", priority: .high), id: "3"))
        #expect(
            SignalingCodec.decode(#"{"type":"setTrackPriority","trackSid":"MT1","priority":null}"#)
                == .request(.setTrackPriority(trackSid: "MT1", priority: nil), id: nil))
        #expect(
            SignalingCodec.decode(
                #"{"type":"setContentPreferences","trackSid":"MT…","renderDimensions":{"width":640,"height":360}}"#)
                == .request(.setContentPreferences(trackSid: "MT…", renderDimensions: .init(width: 640, height: 360)), id: nil))
        #expect(
            SignalingCodec.decode(#"{"type":"setContentPreferences","trackSid":"MT1","renderDimensions":null}"#)
                == .request(.setContentPreferences(trackSid: "MT1", renderDimensions: nil), id: nil))
        #expect(
            SignalingCodec.decode(#"{"type":"switchOffTrack","trackSid":"MT…"}"#)
                == .request(.switchOffTrack(trackSid: "MT…"), id: nil))
        #expect(
            SignalingCodec.decode(#"{"type":"switchOnTrack","id":"9","trackSid":"MT…"}"#)
                == .request(.switchOnTrack(trackSid: "MT…"), id: "9"))
    }

    @Test func badSubscriberRequestsAre53003() {
        for frame in [
            #"{"type":"setTrackPriority","id":"1","trackSid":"MT1","priority":"urgent"}"#,
            #"{"type":"setContentPreferences","id":"1","trackSid":"MT1","renderDimensions":{"width":0,"height":360}}"#,
            #"{"type":"setContentPreferences","id":"1","trackSid":"MT1","renderDimensions":{"width":640,"height":99999}}"#,
            #"{"type":"setContentPreferences","id":"1","trackSid":"MT1","renderDimensions":{"width":"640","height":360}}"#,
            #"{"type":"switchOffTrack","id":"1"}"#,
        ] {
            guard case .invalid(let id, _, _) = SignalingCodec.decode(frame) else {
                Issue.record("accepted: \(frame)")
                continue
            }
            #expect(id == "1")
        }
    }

    @Test func serverEvents() {
        ServerMessageEncodingTests.expectEncodes(
            .trackSwitchedOff(trackSid: "MT…", reason: "network-congestion"),
            to: #"{"type":"trackSwitchedOff","trackSid":"MT…","reason":"network-congestion"}"#)
        ServerMessageEncodingTests.expectEncodes(
            .trackSwitchedOn(trackSid: "MT…"), to: #"{"type":"trackSwitchedOn","trackSid":"MT…"}"#)
        ServerMessageEncodingTests.expectEncodes(
            .publisherLayers(trackSid: "MT…", active: ["q", "h"]),
            to: #"{"type":"publisherLayers","trackSid":"MT…","active":["q","h"]}"#)
    }

    @Test func roomNoticesBecomeTheEvents() {
        let track = TrackSID(unchecked: "MT00000000000000000000000000000001")
        #expect(
            ServerMessage(.trackSwitchedOff(track, reason: .disabledBySubscriber))
                == .trackSwitchedOff(trackSid: track.rawValue, reason: "disabled-by-subscriber"))
        #expect(ServerMessage(.trackSwitchedOn(track)) == .trackSwitchedOn(trackSid: track.rawValue))
        #expect(ServerMessage(.publisherLayers(track, active: ["q"])) == .publisherLayers(trackSid: track.rawValue, active: ["q"]))
    }
}
