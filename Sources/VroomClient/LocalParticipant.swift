import Synchronization

/// This participant: publishes and unpublishes its tracks.
public final class LocalParticipant: Sendable {
    public let sid: String
    public let identity: String
    let core: RoomCore

    struct Fields {
        var audioTracks: [LocalAudioTrack] = []
        var videoTracks: [LocalVideoTrack] = []
        var publications: [String: LocalTrackPublication] = [:]
        /// `LocalTrackPublicationOptions.priority` by track name.
        var priorities: [String: TrackPriority] = [:]
        weak var delegate: (any LocalParticipantDelegate)?
    }

    let fields = Mutex(Fields())

    init(sid: String, identity: String, core: RoomCore) {
        self.sid = sid
        self.identity = identity
        self.core = core
    }

    /// Held weakly; called on the room's delegate queue.
    public var delegate: (any LocalParticipantDelegate)? {
        get { fields.withLock { $0.delegate } }
        set { fields.withLock { $0.delegate = newValue } }
    }

    public var audioTracks: [LocalAudioTrack] { fields.withLock { $0.audioTracks } }
    public var videoTracks: [LocalVideoTrack] { fields.withLock { $0.videoTracks } }

    /// The server's SIDs for the tracks it accepted, by track name.
    public var trackPublications: [LocalTrackPublication] {
        fields.withLock { Array($0.publications.values) }.sorted { $0.trackName < $1.trackName }
    }

    public func publication(named name: String) -> LocalTrackPublication? {
        fields.withLock { $0.publications[name] }
    }

    /// Starts publishing; the delegate hears `didPublishTrack` (with the
    /// SID) or `didFailToPublishTrack`. False if a track of that name is
    /// already published here.
    @discardableResult
    public func publish(audioTrack track: LocalAudioTrack) -> Bool {
        let added = fields.withLock { fields -> Bool in
            guard !fields.names.contains(track.name) else { return false }
            fields.audioTracks.append(track)
            return true
        }
        if added { core.localTracksChanged() }
        return added
    }

    /// `options.priority` goes in the `tracks` entry (PROTOCOL.md section 7).
    @discardableResult
    public func publish(videoTrack track: LocalVideoTrack, options: LocalTrackPublicationOptions = .init()) -> Bool {
        let added = fields.withLock { fields -> Bool in
            guard !fields.names.contains(track.name) else { return false }
            fields.videoTracks.append(track)
            fields.priorities[track.name] = options.priority
            return true
        }
        if added { core.localTracksChanged() }
        return added
    }

    /// Stops publishing (the room hears `trackUnpublished`). False if it was not published.
    @discardableResult
    public func unpublish(audioTrack track: LocalAudioTrack) -> Bool {
        let removed = fields.withLock { fields -> Bool in
            guard let index = fields.audioTracks.firstIndex(where: { $0 === track }) else { return false }
            fields.audioTracks.remove(at: index)
            fields.publications[track.name] = nil
            return true
        }
        if removed { core.localTracksChanged() }
        return removed
    }

    @discardableResult
    public func unpublish(videoTrack track: LocalVideoTrack) -> Bool {
        let removed = fields.withLock { fields -> Bool in
            guard let index = fields.videoTracks.firstIndex(where: { $0 === track }) else { return false }
            fields.videoTracks.remove(at: index)
            fields.publications[track.name] = nil
            return true
        }
        if removed { core.localTracksChanged() }
        return removed
    }
}

extension LocalParticipant.Fields {
    var names: Set<String> { Set(audioTracks.map(\.name) + videoTracks.map(\.name)) }
}
