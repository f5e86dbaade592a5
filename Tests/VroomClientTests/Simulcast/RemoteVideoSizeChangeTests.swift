import Codecs
import Packets
import Testing

@testable import VroomClient

/// What a subscriber sees when the server switches layers: one stream
/// whose decoded frames change size at a keyframe. The receiver decodes
/// through the change (real libvpx) and records each size once.
@Suite struct RemoteVideoSizeChangeTests {
    func frames(width: Int, height: Int, count: Int, first: UInt32) throws -> [RemoteVideoFrame] {
        let encoder = try VP8Encoder(VP8EncoderConfiguration(width: width, height: height))
        return try (0..<count).compactMap { index in
            let picture = TestPattern.draw(frameNumber: first + UInt32(index), timestamp: 0, width: width, height: height)
            guard let encoded = try encoder.encode(picture, forceKeyframe: index == 0) else { return nil }
            return RemoteVideoFrame(
                data: encoded.data, isKeyframe: encoded.isKeyframe, rtpTimestamp: UInt32(index) * 3000,
                arrival: MediaTime(nanoseconds: 0), followsLoss: false)
        }
    }

    @Test func layerSwitchesShowAsSizeChanges() throws {
        let receiver = RemoteVideoReceiver(decodes: true)
        let stream = try frames(width: 160, height: 120, count: 5, first: 0) + frames(width: 640, height: 480, count: 5, first: 5)
            + frames(width: 160, height: 120, count: 5, first: 10)
        for frame in stream { #expect(receiver.receive(frame) == .decoded) }
        #expect(receiver.sizeChanges.map(\.dimensions) == [
            VideoDimensions(width: 160, height: 120), VideoDimensions(width: 640, height: 480),
            VideoDimensions(width: 160, height: 120),
        ])
        #expect(zip(receiver.sizeChanges, receiver.sizeChanges.dropFirst()).allSatisfy { $0.time <= $1.time })
        #expect(receiver.frameNumbers == Set(0..<15))
    }

    @Test func aReceiverThatDoesNotDecodeSeesNoSize() throws {
        let receiver = RemoteVideoReceiver(decodes: false)
        for frame in try frames(width: 160, height: 120, count: 2, first: 0) { #expect(receiver.receive(frame) == .skipped) }
        #expect(receiver.sizeChanges.isEmpty)
    }
}
