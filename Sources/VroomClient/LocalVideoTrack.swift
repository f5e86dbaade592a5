/// A camera track this participant may publish. `isEnabled = false` is
/// "camera off" (the room keeps the publication and sees it disabled);
/// unpublishing removes it.
public final class LocalVideoTrack: Sendable {
    public let name: String
    public let source: CameraSource
    let state: LocalTrackState

    public init(name: String = "camera", source: CameraSource = CameraSource(), enabled: Bool = true) {
        self.name = name
        self.source = source
        self.state = LocalTrackState(enabled: enabled)
    }

    /// The user's choice. A camera interruption does not change it.
    public var isEnabled: Bool {
        get { state.isEnabled }
        set { state.isEnabled = newValue }
    }

    /// True while a camera interruption (or the app in the background)
    /// pauses the track; it resumes by itself when that ends.
    public var isInterrupted: Bool { state.isInterrupted }
}
