/// What the SDK's microphone captures: a tone, so receivers can tell who
/// they hear by its frequency, at a loudness that drives the audio level.
public struct AudioTrackOptions: Sendable, Equatable {
    public var toneFrequency: Double
    /// 0...1 of full scale.
    public var amplitude: Double
    /// Opus bitrate, bit/s.
    public var bitrate: Int

    public init(toneFrequency: Double = 440, amplitude: Double = 0.3, bitrate: Int = 32_000) {
        self.toneFrequency = toneFrequency
        self.amplitude = amplitude
        self.bitrate = bitrate
    }
}

/// A microphone track this participant may publish. An audio-session
/// interruption pauses it (and the audio this participant hears) until
/// the interruption ends or the app becomes active again.
public final class LocalAudioTrack: Sendable {
    public let name: String
    public let options: AudioTrackOptions
    let state: LocalTrackState

    public init(name: String = "microphone", options: AudioTrackOptions = AudioTrackOptions(), enabled: Bool = true) {
        self.name = name
        self.options = options
        self.state = LocalTrackState(enabled: enabled)
    }

    /// The user's choice (mute is `false`). An interruption does not change it.
    public var isEnabled: Bool {
        get { state.isEnabled }
        set { state.isEnabled = newValue }
    }

    public var isInterrupted: Bool { state.isInterrupted }
}
