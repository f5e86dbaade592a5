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

    /// The protocol's code (PROTOCOL.md section 4) for this error.
    public var protocolCode: ProtocolErrorCode {
        switch self {
        case .accessTokenGrantsInvalid: .accessTokenGrantsInvalid
        case .signalingConnectionDisconnected: .signalingConnectionDisconnected
        case .signalingServerBusy: .signalingServerBusy
        case .roomNameInvalid: .roomNameInvalid
        case .roomNameTooLong: .roomNameTooLong
        case .roomNameCharsInvalid: .roomNameCharsInvalid
        case .roomMaxParticipantsExceeded: .roomMaxParticipantsExceeded
        case .roomNotFound: .roomNotFound
        case .roomMaxParticipantsOutOfRange: .roomMaxParticipantsOutOfRange
        case .roomTimeoutOutOfRange: .roomTimeoutOutOfRange
        case .roomStatusInvalid: .roomStatusInvalid
        case .roomExists: .roomExists
        case .roomCompleted: .roomCompleted
        case .participantIdentityInvalid: .participantIdentityInvalid
        case .participantIdentityTooLong: .participantIdentityTooLong
        case .participantIdentityCharsInvalid: .participantIdentityCharsInvalid
        case .participantMaxTracksExceeded: .participantMaxTracksExceeded
        case .participantNotFound: .participantNotFound
        case .participantDuplicateIdentity: .participantDuplicateIdentity
        case .participantRemoved: .participantRemoved
        case .trackInvalid, .trackNotFound: .trackInvalid
        case .trackNameInvalid: .trackNameInvalid
        case .trackNameTooLong: .trackNameTooLong
        case .trackNameIsDuplicated: .trackNameIsDuplicated
        }
    }

    /// The protocol's numeric code.
    public var code: Int { protocolCode.rawValue }

    /// The twilio-video.js name of the code.
    public var name: String { protocolCode.name }

    /// A human-readable message for `error` / `disconnected` frames and REST
    /// bodies: the code's own, more precise where this error knows more.
    public var message: String {
        switch self {
        case .signalingConnectionDisconnected: "Signaling connection disconnected: reconnect window missed"
        case .trackNotFound: "Track not found"
        default: protocolCode.message
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
