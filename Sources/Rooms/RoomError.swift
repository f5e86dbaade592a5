/// Every refusal the room logic can decide, with the protocol's code and
/// message (PROTOCOL.md section 4). Signaling sends them as `error` or
/// `disconnected`; AdminAPI maps them to HTTP statuses with `httpStatus`.
public enum RoomError: Error, Equatable, Hashable, Sendable, CaseIterable {
    /// 20106: a resume with a session token of another identity, or a join
    /// to a room the token's room grant does not allow.
    case accessTokenGrantsInvalid
    /// 53001: a resume after the reconnect window, after `leave`, or with an
    /// unknown or already used session token.
    case signalingConnectionDisconnected
    /// 53006: the node is at its participant limit.
    case signalingServerBusy
    /// 53100: empty (or whitespace-only) room name.
    case roomNameInvalid
    /// 53101: room name over 128 Unicode scalars.
    case roomNameTooLong
    /// 53102: room name with control characters.
    case roomNameCharsInvalid
    /// 53105: the room is at its `maxParticipants`.
    case roomMaxParticipantsExceeded
    /// 53106: no such room (and ad-hoc creation off), or a resume finds it ended.
    case roomNotFound
    /// 53107: REST create with `MaxParticipants` outside 1...limit.
    case roomMaxParticipantsOutOfRange
    /// 53109: REST create with a timeout outside 1-60 minutes.
    case roomTimeoutOutOfRange
    /// 53112: REST completion of a room that is not in progress.
    case roomStatusInvalid
    /// 53113: REST create of a unique name that is in progress.
    case roomExists
    /// 53118: the room was ended by REST or a timeout (sent as `disconnected`).
    case roomCompleted
    /// 53200: empty identity.
    case participantIdentityInvalid
    /// 53201: identity over 128 Unicode scalars.
    case participantIdentityTooLong
    /// 53202: identity with control characters.
    case participantIdentityCharsInvalid
    /// 53203: more publications than `maxTracksPerParticipant`.
    case participantMaxTracksExceeded
    /// 53204: no current participant with that SID or identity.
    case participantNotFound
    /// 53205: sent to the older session when the same identity joins again.
    case participantDuplicateIdentity
    /// 53216 (Vroom): removed through the REST API.
    case participantRemoved
    /// 53300: bad track description (kind, mid, duplicated mid).
    case trackInvalid
    /// 53301: empty track name or one with control characters.
    case trackNameInvalid
    /// 53302: track name over 128 Unicode scalars.
    case trackNameTooLong
    /// 53304: two tracks of one participant with the same name.
    case trackNameIsDuplicated
    /// No publication with that SID (REST answers 404). Carries 53300
    /// (TrackInvalid) on the signaling socket: PROTOCOL.md has no code of its own.
    case trackNotFound

    /// The protocol's numeric code.
    public var code: Int {
        switch self {
        case .accessTokenGrantsInvalid: 20106
        case .signalingConnectionDisconnected: 53001
        case .signalingServerBusy: 53006
        case .roomNameInvalid: 53100
        case .roomNameTooLong: 53101
        case .roomNameCharsInvalid: 53102
        case .roomMaxParticipantsExceeded: 53105
        case .roomNotFound: 53106
        case .roomMaxParticipantsOutOfRange: 53107
        case .roomTimeoutOutOfRange: 53109
        case .roomStatusInvalid: 53112
        case .roomExists: 53113
        case .roomCompleted: 53118
        case .participantIdentityInvalid: 53200
        case .participantIdentityTooLong: 53201
        case .participantIdentityCharsInvalid: 53202
        case .participantMaxTracksExceeded: 53203
        case .participantNotFound: 53204
        case .participantDuplicateIdentity: 53205
        case .participantRemoved: 53216
        case .trackInvalid, .trackNotFound: 53300
        case .trackNameInvalid: 53301
        case .trackNameTooLong: 53302
        case .trackNameIsDuplicated: 53304
        }
    }

    /// The twilio-video.js name of the code.
    public var name: String {
        switch self {
        case .accessTokenGrantsInvalid: "AccessTokenGrantsInvalid"
        case .signalingConnectionDisconnected: "SignalingConnectionDisconnected"
        case .signalingServerBusy: "SignalingServerBusy"
        case .roomNameInvalid: "RoomNameInvalid"
        case .roomNameTooLong: "RoomNameTooLong"
        case .roomNameCharsInvalid: "RoomNameCharsInvalid"
        case .roomMaxParticipantsExceeded: "RoomMaxParticipantsExceeded"
        case .roomNotFound: "RoomNotFound"
        case .roomMaxParticipantsOutOfRange: "RoomMaxParticipantsOutOfRange"
        case .roomTimeoutOutOfRange: "RoomTimeoutOutOfRange"
        case .roomStatusInvalid: "RoomStatusInvalid"
        case .roomExists: "RoomExists"
        case .roomCompleted: "RoomCompleted"
        case .participantIdentityInvalid: "ParticipantIdentityInvalid"
        case .participantIdentityTooLong: "ParticipantIdentityTooLong"
        case .participantIdentityCharsInvalid: "ParticipantIdentityCharsInvalid"
        case .participantMaxTracksExceeded: "ParticipantMaxTracksExceeded"
        case .participantNotFound: "ParticipantNotFound"
        case .participantDuplicateIdentity: "ParticipantDuplicateIdentity"
        case .participantRemoved: "ParticipantRemoved"
        case .trackInvalid, .trackNotFound: "TrackInvalid"
        case .trackNameInvalid: "TrackNameInvalid"
        case .trackNameTooLong: "TrackNameTooLong"
        case .trackNameIsDuplicated: "TrackNameIsDuplicated"
        }
    }

    /// A human-readable message for `error` / `disconnected` frames and REST bodies.
    public var message: String {
        switch self {
        case .accessTokenGrantsInvalid: "Invalid access token grants"
        case .signalingConnectionDisconnected: "Signaling connection disconnected: reconnect window missed"
        case .signalingServerBusy: "Server is busy"
        case .roomNameInvalid: "Room name is invalid"
        case .roomNameTooLong: "Room name is too long"
        case .roomNameCharsInvalid: "Room name contains invalid characters"
        case .roomMaxParticipantsExceeded: "Room contains too many Participants"
        case .roomNotFound: "Room not found"
        case .roomMaxParticipantsOutOfRange: "MaxParticipants is out of range"
        case .roomTimeoutOutOfRange: "Room timeout is out of range"
        case .roomStatusInvalid: "Room status is invalid"
        case .roomExists: "Room exists"
        case .roomCompleted: "Room completed"
        case .participantIdentityInvalid: "Participant identity is invalid"
        case .participantIdentityTooLong: "Participant identity is too long"
        case .participantIdentityCharsInvalid: "Participant identity contains invalid characters"
        case .participantMaxTracksExceeded: "Participant has too many Tracks"
        case .participantNotFound: "Participant not found"
        case .participantDuplicateIdentity: "Participant disconnected because of duplicate identity"
        case .participantRemoved: "Participant removed"
        case .trackInvalid: "Track is invalid"
        case .trackNotFound: "Track not found"
        case .trackNameInvalid: "Track name is invalid"
        case .trackNameTooLong: "Track name is too long"
        case .trackNameIsDuplicated: "Track name is duplicated"
        }
    }

    /// The HTTP status the admin REST API answers with (PROTOCOL.md section 6):
    /// 404 for unknown rooms, participants and tracks, 409 for 53113, else 400.
    public var httpStatus: Int {
        switch self {
        case .roomNotFound, .participantNotFound, .trackNotFound: 404
        case .roomExists: 409
        case .signalingServerBusy: 503
        default: 400
        }
    }
}
