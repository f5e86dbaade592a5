import Foundation
import Logging
import Packets
import SDP
import Synchronization
import Testing
import VroomTestPeer
import VroomTesting
import WebRTC

@testable import MediaIO
import Node
import Rooms

/// The `MediaEvent`s a plane reported (its closure runs on a worker
/// thread), in the rooms' SIDs as `Node` translates them.
final class EventLog: Sendable {
    private let events = Mutex<[MediaEvent]>([])
    private let media = Mutex<RoomMedia?>(nil)

    func append(_ event: MediaEvent) { events.withLock { $0.append(event) } }

    /// The face that translates handles to SIDs (set once it exists).
    func translate(with media: RoomMedia) { self.media.withLock { $0 = media } }

    var all: [RoomMediaEvent] {
        guard let media = media.withLock({ $0 }) else { return [] }
        return events.withLock { $0 }.compactMap(media.translate)
    }
}

/// A real `MediaPlane` on 127.0.0.1 (one worker, a kernel-chosen port) with
/// participant A publishing Opus + VP8 and participant B subscribed to
/// both, each a `TestPeer` on its own UDP socket: no signaling, the calls
/// Signaling would make, in its order.
final class PlaneSession {
    /// The media plane (handles) and its control face in SIDs (what
    /// Signaling calls, through `Node`).
    let mediaPlane: MediaPlane
    let plane: RoomMedia
    let log: EventLog
    let room: RoomSID
    let publisherSID: ParticipantSID
    let subscriberSID: ParticipantSID
    let audioTrack: TrackSID
    let videoTrack: TrackSID
    let publisher: TestPeer
    let subscriber: TestPeer
    var source: MediaSource
    /// The publish answer and subscriber offer the server wrote.
    private(set) var publishAnswer = ""
    private(set) var subscriberOffer = ""
    /// B's SSRCs and payload types from the server's subscriber offer.
    private(set) var audioSSRC = SSRC(0)
    private(set) var videoSSRC = SSRC(0)
    private(set) var audioPayloadType: UInt8 = 0
    private(set) var videoPayloadType: UInt8 = 0

    /// Creates and starts the plane and both peers (not yet connected).
    init(
        seed: UInt64, consentTimeoutSeconds: Double = 30, publisherOverTCP: Bool = false, subscriberOverTCP: Bool = false,
        iceTCP: ICETCPConfiguration = .init(), workers: Int = 1, spreadRoomAfter: Int = 32
    ) throws {
        var generator = SeededGenerator(seed: seed)
        room = .random(using: &generator)
        publisherSID = .random(using: &generator)
        subscriberSID = .random(using: &generator)
        audioTrack = .random(using: &generator)
        videoTrack = .random(using: &generator)
        source = MediaSource(
            audioSSRC: SSRC(UInt32.random(in: 1...UInt32.max, using: &generator)),
            videoSSRC: SSRC(UInt32.random(in: 1...UInt32.max, using: &generator)))
        publisher = try TestPeer(ice: .random(using: &generator), overTCP: publisherOverTCP)
        subscriber = try TestPeer(ice: .random(using: &generator), overTCP: subscriberOverTCP)
        let log = EventLog()
        self.log = log
        mediaPlane = try MediaPlane(
            configuration: MediaConfiguration(
                bindAddress: "127.0.0.1", basePort: 0, workers: workers, announcedAddresses: ["127.0.0.1"],
                consentTimeoutSeconds: consentTimeoutSeconds, iceTCP: iceTCP, spreadRoomAfter: spreadRoomAfter),
            logger: Logger(label: "test.media"), events: { [log] in log.append($0) })
        mediaPlane.start()
        plane = RoomMedia(plane: mediaPlane)
        log.translate(with: plane)
    }

    var serverAddress: STUNAddress { STUNAddress(ipv4: 127, 0, 0, 1, port: plane.ports[0]) }

    /// A publishes (answerPublish, applyPublish) and connects.
    func publish(consentCheckInterval: Duration = .seconds(5)) async throws {
        let offer = publisher.publishOffer(audioSSRC: source.audioSSRC, videoSSRC: source.videoSSRC)
        let pending = try plane.answerPublish(
            participant: publisherSID, room: room, offer: offer, trackMIDs: ["0", "1"])
        publishAnswer = pending.sdp
        try await plane.applyPublish(
            participant: publisherSID, room: room, pending,
            tracks: [
                PublishedTrackAssignment(mid: "0", sid: audioTrack, name: "mic", kind: .audio, enabled: true, isNew: true),
                PublishedTrackAssignment(mid: "1", sid: videoTrack, name: "camera", kind: .video, enabled: true, isNew: true),
            ])
        // a=setup:passive in the answer to our actpass: we are the DTLS client.
        #expect(publishAnswer.contains("a=setup:passive"))
        try publisher.connect(serverSDP: publishAnswer, dtlsRole: .client, consentCheckInterval: consentCheckInterval)
        let connected = await TestPeer.pump([publisher]) { publisher.isConnected }
        try #require(connected, "A's DTLS-SRTP did not come up")
    }

    /// B gets an offer for A's two tracks, answers it, and connects.
    func subscribe(consentCheckInterval: Duration = .seconds(5)) async throws {
        let offer = try await subscribe(subscriber, as: subscriberSID, consentCheckInterval: consentCheckInterval)
        subscriberOffer = offer
        let parsed = try ServerTransportSDP(offer)
        let audio = try #require(parsed.media(mid: "0"))
        let video = try #require(parsed.media(mid: "1"))
        audioSSRC = try #require(audio.ssrcs.first)
        videoSSRC = try #require(video.ssrcs.first)
        audioPayloadType = audio.payloadType
        videoPayloadType = video.payloadType
    }

    /// `peer` (participant `sid`) gets an offer for A's two tracks, answers
    /// it and connects; returns the server's offer.
    @discardableResult
    func subscribe(_ peer: TestPeer, as sid: ParticipantSID, consentCheckInterval: Duration = .seconds(5)) async throws -> String {
        let offer = try #require(
            try plane.subscriberOffer(
                participant: sid, room: room,
                slots: [
                    SubscriberSlotRequest(mid: "0", kind: .audio, track: SubscribedTrackRef(sid: audioTrack, publisher: publisherSID)),
                    SubscriberSlotRequest(mid: "1", kind: .video, track: SubscribedTrackRef(sid: videoTrack, publisher: publisherSID)),
                ]))
        try await plane.applySubscriberAnswer(participant: sid, sdp: peer.subscriberAnswer(to: offer))
        try peer.connect(serverSDP: offer, dtlsRole: .client, consentCheckInterval: consentCheckInterval)
        let connected = await TestPeer.pump([publisher, subscriber, peer]) { peer.isConnected }
        try #require(connected, "\(sid)'s DTLS-SRTP did not come up")
        return offer
    }

    /// Both connected.
    static func connected(
        seed: UInt64, consentTimeoutSeconds: Double = 30, publisherOverTCP: Bool = false, subscriberOverTCP: Bool = false,
        iceTCP: ICETCPConfiguration = .init()
    ) async throws -> PlaneSession {
        let session = try PlaneSession(
            seed: seed, consentTimeoutSeconds: consentTimeoutSeconds, publisherOverTCP: publisherOverTCP,
            subscriberOverTCP: subscriberOverTCP, iceTCP: iceTCP)
        try await session.publish()
        try await session.subscribe()
        return session
    }

    // MARK: Media

    /// A sends one audio packet and one video frame per round, the first
    /// video frame a keyframe when `keyframeFirst`.
    func sendRounds(_ rounds: Int, keyframeFirst: Bool) throws {
        for round in 0..<rounds {
            let (audioHeader, audioPayload) = source.audioPacket()
            try publisher.sendRTP(audioHeader, payload: audioPayload)
            let (videoHeader, videoPayload) = source.videoPacket(keyframe: keyframeFirst && round == 0)
            try publisher.sendRTP(videoHeader, payload: videoPayload)
        }
    }

    func received(ssrc: SSRC) -> [ReceivedRTP] { subscriber.rtp.filter { $0.ssrc == ssrc } }

    /// A sends a keyframe and `rounds` rounds; B must receive all of them.
    /// Proves the A -> B session still forwards.
    func expectForwarding(rounds: Int = 5, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let audioBefore = received(ssrc: audioSSRC).count
        let videoBefore = received(ssrc: videoSSRC).count
        try sendRounds(rounds, keyframeFirst: true)
        let arrived = await TestPeer.pump([publisher, subscriber]) {
            received(ssrc: audioSSRC).count >= audioBefore + rounds && received(ssrc: videoSSRC).count >= videoBefore + rounds
        }
        #expect(arrived, "A -> B stopped forwarding", sourceLocation: sourceLocation)
    }

    func statistics() async -> MediaStatistics { await plane.statistics() }

    func stop() async {
        await mediaPlane.stop()
    }
}

/// `true` when each sequence number is the previous one plus one (mod 2^16).
func isContiguous(_ packets: [ReceivedRTP]) -> Bool {
    zip(packets, packets.dropFirst()).allSatisfy { $1.sequenceNumber == $0.sequenceNumber &+ 1 }
}

/// An RTCP packet's bytes, as a peer sends them.
func encodedRTCP(_ packet: some RTCPPacketWriter) throws -> [UInt8] {
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 16)
    defer { scratch.deallocate() }
    let length = try packet.write(to: scratch)
    return Array(scratch[0..<length])
}
