extension RoomCore {
    /// Interruptions as a phone app meets them (PROTOCOL.md 3.3, the
    /// vendor notes in shared/seeds): a camera interruption pauses video
    /// and never unpublishes it; an audio interruption pauses local and
    /// remote audio; the app going to the background is a camera
    /// interruption; becoming active again ends that, and also ends an
    /// audio interruption whose "ended" never came.
    func handle(_ notification: SystemNotification) {
        guard !isFinished else { return }
        switch notification {
        case .cameraInterruptionBegan(let reason):
            beginCameraInterruption(reason)
        case .cameraInterruptionEnded:
            endCameraInterruption()
        case .applicationDidEnterBackground:
            if cameraInterruption == nil {
                cameraInterruptedByBackground = true
                beginCameraInterruption(.videoDeviceNotAvailableInBackground)
            }
        case .applicationDidBecomeActive:
            if cameraInterruptedByBackground { endCameraInterruption() }
            if audioInterruption != nil { endAudioInterruption() }
        case .audioInterruptionBegan(let reason):
            guard audioInterruption == nil else { return }
            audioInterruption = .some(reason)
            engine?.setRemoteAudioPaused(true)
            updateSending()
            sendInterruption(kind: "audio", began: true, reason: reason ?? "interrupted")
        case .audioInterruptionEnded:
            endAudioInterruption()
        }
    }

    private func beginCameraInterruption(_ reason: CameraInterruptionReason) {
        guard cameraInterruption == nil else { return }
        cameraInterruption = reason
        updateSending()
        sendInterruption(kind: "camera", began: true, reason: reason.rawValue)
    }

    private func endCameraInterruption() {
        guard cameraInterruption != nil else { return }
        cameraInterruption = nil
        cameraInterruptedByBackground = false
        updateSending()
        sendInterruption(kind: "camera", began: false, reason: nil)
    }

    private func endAudioInterruption() {
        guard audioInterruption != nil else { return }
        audioInterruption = nil
        engine?.setRemoteAudioPaused(false)
        updateSending()
        sendInterruption(kind: "audio", began: false, reason: nil)
    }

    private func sendInterruption(kind: String, began: Bool, reason: String?) {
        guard isJoined, let channel else { return }  // sent on (re)join instead
        channel.send(.interruption(id: nextRequestID("int-"), kind: kind, began: began, reason: reason))
    }

    /// After `joined`: the interruptions in force (the server's state may
    /// be fresh after a restart; repeating one changes nothing).
    func sendInterruptionState() {
        if let reason = cameraInterruption { sendInterruption(kind: "camera", began: true, reason: reason.rawValue) }
        if let reason = audioInterruption { sendInterruption(kind: "audio", began: true, reason: reason ?? "interrupted") }
    }
}
