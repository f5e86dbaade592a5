import SFU

/// What a subscriber asked for one video track it receives (PROTOCOL.md
/// section 7): the size it renders the track at, its own priority for it,
/// and whether it switched the track off itself. Kept on the worker per
/// participant, so that it holds before the DownTrack exists, across the
/// subscriber's renegotiations and across a resume, and is applied whenever
/// the DownTrack is (re)made.
public struct DownTrackPreferences: Sendable, Hashable {
    public var renderDimensions: RenderDimensions?
    public var priority: MediaTrackPriority?
    public var switchedOff = false

    public init(renderDimensions: RenderDimensions? = nil, priority: MediaTrackPriority? = nil, switchedOff: Bool = false) {
        self.renderDimensions = renderDimensions
        self.priority = priority
        self.switchedOff = switchedOff
    }
}

/// A width and height in pixels.
public struct RenderDimensions: Sendable, Hashable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

extension MediaWorkerRooms {
    /// Changes `participant`'s preferences for `track` and applies them to
    /// its DownTrack, if it has one now.
    func updatePreferences(
        participant: ParticipantHandle, room: RoomHandle, track: TrackID, _ change: (inout DownTrackPreferences) -> Void
    ) {
        var preferences = subscriberPreferences[participant, default: [:]][track] ?? DownTrackPreferences()
        change(&preferences)
        subscriberPreferences[participant, default: [:]][track] = preferences
        guard let subscriber = table.byID.values.first(where: { $0.participant == participant && $0.role == .subscriber }),
            let router = routers[room]
        else { return }
        apply(preferences, track: track, subscriber: subscriber.id, router: router)
        touch(room)
    }

    /// Applies what the subscriber of `plan` asked for to its new DownTrack.
    func applyPreferences(of participant: ParticipantHandle, to plan: DownTrackPlan, router: Router) {
        guard let preferences = subscriberPreferences[participant]?[plan.track] else { return }
        apply(preferences, track: plan.track, subscriber: plan.subscriber, router: router)
    }

    private func apply(_ preferences: DownTrackPreferences, track: TrackID, subscriber: TransportID, router: Router) {
        let now = MediaClock.now()
        do {
            try router.setRenderDimensions(
                track: track, subscriber: subscriber, width: preferences.renderDimensions?.width,
                height: preferences.renderDimensions?.height, now: now)
            try router.setSubscriberPriority(track: track, subscriber: subscriber, preferences.priority)
            try router.setSwitchedOffBySubscriber(track: track, subscriber: subscriber, preferences.switchedOff, now: now)
        } catch {
            // No DownTrack of that track on this connection (yet): the
            // preferences are applied when it is made.
        }
    }
}
