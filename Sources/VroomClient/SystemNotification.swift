/// What the platform tells an app that matters to a call: camera and audio
/// session interruptions and the app moving between foreground and
/// background. On iOS an app forwards `AVCaptureSession` interruption,
/// `AVAudioSession.interruptionNotification` and `UIApplication`
/// lifecycle notifications here; on Linux and in tests, code posts them.
public enum SystemNotification: Sendable, Equatable {
    /// The camera stopped delivering frames (AVCaptureSession's reasons).
    case cameraInterruptionBegan(reason: CameraInterruptionReason)
    case cameraInterruptionEnded
    /// The audio session was taken (a phone call, an alarm, another app).
    case audioInterruptionBegan(reason: String?)
    /// May never come (a known platform gap): becoming active again resumes audio too.
    case audioInterruptionEnded
    case applicationDidEnterBackground
    case applicationDidBecomeActive
}

/// Why a camera stopped, as AVCaptureSession.InterruptionReason names it;
/// sent to the room as the interruption's `reason`.
public enum CameraInterruptionReason: String, Sendable, Equatable {
    case videoDeviceNotAvailableInBackground
    case audioDeviceInUseByAnotherClient
    case videoDeviceInUseByAnotherClient
    case videoDeviceNotAvailableWithMultipleForegroundApps
    case videoDeviceNotAvailableDueToSystemPressure
}
