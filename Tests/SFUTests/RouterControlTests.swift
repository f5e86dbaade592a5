import Packets
import Testing
import WebRTC
@testable import SFU

@Suite struct RouterControlTests {
    @Test func ssrcsAreLearnedFromAUniquePayloadTypeWithoutMID() throws {
        var room = try Room(declareSSRCs: false)
        room.send(Publish.opus(sequence: 1, timestamp: 960, ssrc: SSRC(0x5151)))
        room.send(Publish.vp8(sequence: 9, timestamp: 0, ssrc: SSRC(0x5252), keyframe: true))
        #expect(room.router.receiverSSRCs(track: Room.audio)?.ssrc == SSRC(0x5151))
        #expect(room.router.receiverSSRCs(track: Room.video)?.ssrc == SSRC(0x5252))
        let sent = room.sink.drain()
        #expect(try sent.rtp(to: Room.bob).map(\.ssrc) == [SSRC(0xB3), SSRC(0xB1)])
    }

    @Test func extensionIDsAbove14UseTheTwoByteForm() throws {
        let router = Router()
        var sink = CollectingSink()
        try router.addPublisher(transport: Room.publisher, transportCCExtensionID: nil, midExtensionID: nil)
        try router.addReceiver(
            track: Room.audio, publisher: Room.publisher, kind: .audio, mid: "0", payloadType: 111,
            ssrc: Room.audioSSRC, clockRate: 48_000)
        try router.addSubscriber(transport: Room.alice, midExtensionID: 20, transportCCExtensionID: 21)
        try router.addDownTrack(
            track: Room.audio, subscriber: Room.alice, ssrc: SSRC(3), payloadType: 100, mid: "a-very-long-mid-value",
            extensionCopies: [HeaderExtensionCopy(publisherID: 1, subscriberID: 22)])
        let level: [RTPHeader.Extension] = [.init(id: 1, value: [0x85])]
        router.receive(
            Publish.opus(sequence: 1, timestamp: 960, ssrc: Room.audioSSRC, extensions: level), from: Room.publisher,
            now: .milliseconds(5), into: &sink)
        let packet = try #require(sink.sent.first)
        let profile = UInt16(packet.bytes[12]) << 8 | UInt16(packet.bytes[13])
        #expect(profile == 0x1000)
        let parsed = try packet.rtp()
        #expect(parsed.extensions == [20: Array("a-very-long-mid-value".utf8), 21: [0, 1], 22: [0x85]])
        #expect(parsed.payload.first == 0x78)
    }

    @Test func firFromASubscriberBecomesAPLIToThePublisher() throws {
        var room = try Room()
        room.tick()
        room.frame(0, keyframe: true)
        room.advance(ms: 600)
        _ = room.sink.drain()
        let fir = FullIntraRequest(senderSSRC: SSRC(9), entries: [FIREntry(ssrc: SSRC(0xA1), sequenceNumber: 1)])
        room.router.receiveControl(fir, from: Room.alice, now: room.now, into: &room.sink)
        #expect(
            try room.sink.drain().rtcp(to: Room.publisher)
                == [.pli(PictureLossIndication(senderSSRC: SSRC(1), mediaSSRC: Room.videoSSRC))])
        #expect(room.router.downTrackStats(track: Room.video, subscriber: Room.alice)?.firsReceived == 1)
    }

    @Test func removedDownTracksReceiversAndPublishersForwardNothing() throws {
        var room = try Room()
        room.router.removeDownTrack(track: Room.audio, subscriber: Room.alice)
        room.send(Publish.opus(sequence: 1, timestamp: 960, ssrc: Room.audioSSRC))
        var sent = room.sink.drain()
        #expect(try sent.rtp(to: Room.alice).isEmpty)
        #expect(try sent.rtp(to: Room.bob).count == 1)
        #expect(room.router.downTrackStats(track: Room.audio, subscriber: Room.alice) == nil)
        room.router.removeSubscriber(transport: Room.bob)
        room.send(Publish.opus(sequence: 2, timestamp: 1920, ssrc: Room.audioSSRC))
        #expect(room.sink.drain().isEmpty)
        room.router.removePublisher(transport: Room.publisher)
        #expect(room.router.receiverStats(track: Room.video) == nil)
        room.send(Publish.opus(sequence: 3, timestamp: 2880, ssrc: Room.audioSSRC))
        sent = room.sink.drain()
        #expect(sent.isEmpty)
        #expect(room.router.counters.dropped(.unknownTransport) == 1)
    }

    @Test func controlErrorsCarry53401() throws {
        let room = try Room()
        #expect(throws: RouterError.unknownTrack(TrackID(99))) {
            try room.router.setForwarding(track: TrackID(99), enabled: false, now: .milliseconds(0))
        }
        #expect(throws: RouterError.duplicateTransport(Room.alice)) {
            try room.router.addPublisher(transport: Room.alice, transportCCExtensionID: nil, midExtensionID: nil)
        }
        #expect(throws: RouterError.duplicateDownTrack(Room.video, Room.alice)) {
            try room.router.addDownTrack(track: Room.video, subscriber: Room.alice, ssrc: SSRC(0xEE), payloadType: 96)
        }
        #expect(throws: RouterError.ssrcInUse(Room.videoSSRC)) {
            try room.router.addReceiver(
                track: TrackID(7), publisher: Room.publisher, kind: .video, mid: "9", payloadType: 100,
                ssrc: Room.videoSSRC, clockRate: 90_000)
        }
        #expect(RouterError.unknownTrack(TrackID(1)).code == 53401)
    }
}
