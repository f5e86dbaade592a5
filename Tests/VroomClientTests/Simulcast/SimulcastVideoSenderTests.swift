import Codecs
import Testing

@testable import VroomClient

/// A simulcast camera's encoders, with real libvpx: three layers at 1/4,
/// 1/2 and full scale (decoded back to check the sizes and the stamp),
/// keyframes per layer, and layers paused by `publisherLayers`.
@Suite struct SimulcastVideoSenderTests {
    func sender(width: Int = 640, height: Int = 480, simulcast: Bool = true) throws -> VideoSender {
        let track = LocalVideoTrack(
            source: CameraSource(options: CameraSourceOptions(width: width, height: height, frameRate: 30, bitrate: 900_000)))
        return try VideoSender(track: track, simulcast: simulcast)
    }

    @Test func threeEncodersAtQuarterHalfAndFullScale() throws {
        let sender = try sender()
        #expect(sender.layers.map(\.rid) == ["q", "h", "f"])
        #expect(sender.layers.map { VideoDimensions(width: $0.width, height: $0.height) } == [
            VideoDimensions(width: 160, height: 120), VideoDimensions(width: 320, height: 240),
            VideoDimensions(width: 640, height: 480),
        ])
        let decoders = try (0..<3).map { _ in try VP8Decoder() }
        for number in 0..<5 {
            let output = try sender.captureFrame(timestamp: UInt32(1000 + number))
            #expect(output.map(\.layer) == [0, 1, 2])
            for (layer, encoded) in output {
                if number == 0 { #expect(encoded.isKeyframe) }
                let decoded = try #require(try decoders[layer].decode(encoded.data))
                #expect(decoded.width == sender.layers[layer].width && decoded.height == sender.layers[layer].height)
                // Every layer shows the same frame: a layer switch keeps the numbering.
                #expect(TestPattern.read(decoded)?.frameNumber == UInt32(number))
            }
        }
        #expect(sender.framesEncoded == [5, 5, 5])
        #expect(sender.framesSent == 5)
    }

    @Test func withoutSimulcastOneLayerAtTheCamerasSizeAndBitrate() throws {
        let sender = try sender(simulcast: false)
        #expect(sender.layers == [VideoLayer(rid: nil, width: 640, height: 480, bitrate: 900_000)])
        let output = try sender.captureFrame(timestamp: 0)
        #expect(output.map(\.layer) == [0])
        let decoded = try #require(try VP8Decoder().decode(output[0].frame.data))
        #expect(decoded.width == 640 && decoded.height == 480)
    }

    /// Twilio leaves VP8 simulcast bitrates to libwebrtc's table: a 720p
    /// camera sends 150 + 500 + 2500 kbit/s.
    @Test func layerBitratesAreLibwebrtcsSimulcastDefaults() {
        let layers = VideoLayer.layers(for: CameraSourceOptions(width: 1280, height: 720), simulcast: true)
        #expect(layers.map(\.bitrate) == [150_000, 500_000, 2_500_000])
        #expect(layers.map(\.width) == [320, 640, 1280] && layers.map(\.height) == [180, 360, 720])
        #expect(VideoLayer.defaultBitrate(width: 1920, height: 1080) == 4_000_000)
        #expect(VideoLayer.defaultBitrate(width: 960, height: 540) == 1_200_000)
        #expect(VideoLayer.defaultBitrate(width: 80, height: 60) == 150_000)
    }

    @Test func aKeyframeRequestOnOneLayerKeyframesThatLayerOnly() throws {
        let sender = try sender()
        _ = try sender.captureFrame(timestamp: 0)
        #expect(try sender.captureFrame(timestamp: 1).allSatisfy { !$0.frame.isKeyframe })
        sender.requestKeyframe(layer: 1)
        let output = try sender.captureFrame(timestamp: 2)
        #expect(output.map(\.frame.isKeyframe) == [false, true, false])
        sender.requestKeyframe(layer: 7)  // no such layer: ignored
        #expect(try sender.captureFrame(timestamp: 3).allSatisfy { !$0.frame.isKeyframe })
    }

    @Test func publisherLayersPausesAndResumesWithAKeyframe() throws {
        let sender = try sender()
        _ = try sender.captureFrame(timestamp: 0)
        sender.setNeededLayers(["q", "h"])
        #expect(sender.runningLayers == [true, true, false])
        for number in 1...3 { #expect(try sender.captureFrame(timestamp: UInt32(number)).map(\.layer) == [0, 1]) }
        #expect(sender.framesEncoded == [4, 4, 1])  // "f" encoded nothing while paused
        sender.setNeededLayers([])
        #expect(try sender.captureFrame(timestamp: 4).isEmpty)
        #expect(sender.framesSent == 4)  // nothing drawn either
        sender.setNeededLayers(["q", "h", "f"])
        let resumed = try sender.captureFrame(timestamp: 5)
        #expect(resumed.map(\.layer) == [0, 1, 2])
        #expect(resumed.map(\.frame.isKeyframe) == [true, true, true])
    }

    /// An answer without simulcast leaves the top layer; `publisherLayers`
    /// cannot start a layer the answer did not accept.
    @Test func onlyAcceptedLayersEncode() throws {
        let sender = try sender()
        sender.setAcceptedLayers(["f"])
        #expect(try sender.captureFrame(timestamp: 0).map(\.layer) == [2])
        sender.setNeededLayers(["q", "f"])
        #expect(try sender.captureFrame(timestamp: 1).map(\.layer) == [2])
        sender.setAcceptedLayers(nil)
        #expect(try sender.captureFrame(timestamp: 2).map(\.layer) == [0, 2])
    }
}
