import Codecs
import Foundation
import Packets
import Testing

@testable import VroomClient

/// The tone analysis behind `RemoteTrackStatistics.audioFrequency` is handed
/// out to run off the room's event loop (that loop stamps the arrivals the
/// server's transport-cc estimate is built on), and its result is kept for
/// a second of frames.
@Suite struct RemoteAudioReceiverTests {
    /// Feeds `count` 20 ms Opus frames of a 440 Hz tone.
    static func feed(_ receiver: RemoteAudioReceiver, _ encoder: OpusEncoder, frames count: Int, from start: Int) throws {
        for frame in start..<(start + count) {
            let pcm = (0..<960).map { i in
                Int16(8000 * sin(2 * Double.pi * 440 * Double(frame * 960 + i) / 48_000))
            }
            receiver.receive(RemoteAudioFrame(data: try encoder.encode(pcm), rtpTimestamp: UInt32(frame * 960), arrival: MediaTime(nanoseconds: 0)))
        }
    }

    @Test func theAnalysisIsHandedOutAndItsResultKeptForASecond() throws {
        let receiver = RemoteAudioReceiver(decodes: true)
        let encoder = try OpusEncoder(channels: 1)
        try Self.feed(receiver, encoder, frames: 60, from: 0)
        guard case .pending(let analysis) = receiver.frequencyReading() else {
            Issue.record("the reading ran the analysis itself (on the event loop)")
            return
        }
        #expect(analysis.fullWindow)
        #expect(analysis.samples.count == RemoteAudioReceiver.window)
        let frequency = try #require(analysis.run())
        #expect(abs(frequency - 440) < 2)
        receiver.store(frequency, of: analysis)
        guard case .analyzed(let kept) = receiver.frequencyReading() else {
            Issue.record("the stored result was not kept")
            return
        }
        #expect(kept == frequency)
        // A second later the next reading asks for a fresh analysis.
        try Self.feed(receiver, encoder, frames: 50, from: 60)
        guard case .pending(let next) = receiver.frequencyReading() else {
            Issue.record("a second-old analysis was reused")
            return
        }
        #expect(next.frames == 110)
    }
}
