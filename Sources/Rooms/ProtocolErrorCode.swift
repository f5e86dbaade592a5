/// Every error code of PROTOCOL.md section 4: Twilio's codes with the names
/// twilio-video.js gives them (without its `Error` suffix), plus Vroom's
/// 53216. `error` and `disconnected` frames carry `rawValue` as `code` and
/// usually `message` as `message`.
public enum ProtocolErrorCode: Int, Sendable, CaseIterable, Hashable {
    case accessTokenInvalid = 20101
    case accessTokenIssuerInvalid = 20103
    case accessTokenExpired = 20104
    case accessTokenNotYetValid = 20105
    case accessTokenGrantsInvalid = 20106
    case accessTokenSignatureInvalid = 20107
    case signalingConnectionError = 53000
    case signalingConnectionDisconnected = 53001
    case signalingConnectionTimeout = 53002
    case signalingIncomingMessageInvalid = 53003
    case signalingServerBusy = 53006
    case roomNameInvalid = 53100
    case roomNameTooLong = 53101
    case roomNameCharsInvalid = 53102
    case roomMaxParticipantsExceeded = 53105
    case roomNotFound = 53106
    case roomMaxParticipantsOutOfRange = 53107
    case roomTimeoutOutOfRange = 53109
    case roomStatusInvalid = 53112
    case roomExists = 53113
    case roomCompleted = 53118
    case participantIdentityInvalid = 53200
    case participantIdentityTooLong = 53201
    case participantIdentityCharsInvalid = 53202
    case participantMaxTracksExceeded = 53203
    case participantNotFound = 53204
    case participantDuplicateIdentity = 53205
    /// Vroom's own: removed through the REST API (Twilio has no code for this).
    case participantRemoved = 53216
    case trackInvalid = 53300
    case trackNameInvalid = 53301
    case trackNameTooLong = 53302
    case trackNameIsDuplicated = 53304
    case clientLocalDescFailed = 53400
    case serverLocalDescFailed = 53401
    case clientRemoteDescFailed = 53402
    case serverRemoteDescFailed = 53403
    case noSupportedCodec = 53404
    case mediaConnectionError = 53405
    case mediaDTLSTransportFailed = 53407

    /// The name in PROTOCOL.md section 4 (twilio-video.js's class name without `Error`).
    public var name: String {
        switch self {
        case .accessTokenInvalid: "AccessTokenInvalid"
        case .accessTokenIssuerInvalid: "AccessTokenIssuerInvalid"
        case .accessTokenExpired: "AccessTokenExpired"
        case .accessTokenNotYetValid: "AccessTokenNotYetValid"
        case .accessTokenGrantsInvalid: "AccessTokenGrantsInvalid"
        case .accessTokenSignatureInvalid: "AccessTokenSignatureInvalid"
        case .signalingConnectionError: "SignalingConnectionError"
        case .signalingConnectionDisconnected: "SignalingConnectionDisconnected"
        case .signalingConnectionTimeout: "SignalingConnectionTimeout"
        case .signalingIncomingMessageInvalid: "SignalingIncomingMessageInvalid"
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
        case .trackInvalid: "TrackInvalid"
        case .trackNameInvalid: "TrackNameInvalid"
        case .trackNameTooLong: "TrackNameTooLong"
        case .trackNameIsDuplicated: "TrackNameIsDuplicated"
        case .clientLocalDescFailed: "ClientLocalDescFailed"
        case .serverLocalDescFailed: "ServerLocalDescFailed"
        case .clientRemoteDescFailed: "ClientRemoteDescFailed"
        case .serverRemoteDescFailed: "ServerRemoteDescFailed"
        case .noSupportedCodec: "NoSupportedCodec"
        case .mediaConnectionError: "MediaConnectionError"
        case .mediaDTLSTransportFailed: "MediaDTLSTransportFailed"
        }
    }

    /// A short human message for `error` / `disconnected` frames, worded as
    /// Twilio's SDKs word it where they have one.
    public var message: String {
        switch self {
        case .accessTokenInvalid: "Invalid Access Token"
        case .accessTokenIssuerInvalid: "Invalid Access Token issuer/subject"
        case .accessTokenExpired: "Access Token expired or expiration date invalid"
        case .accessTokenNotYetValid: "Access Token not yet valid"
        case .accessTokenGrantsInvalid: "Invalid Access Token grants"
        case .accessTokenSignatureInvalid: "Invalid Access Token signature"
        case .signalingConnectionError: "Signaling connection error"
        case .signalingConnectionDisconnected: "Signaling connection disconnected"
        case .signalingConnectionTimeout: "Signaling connection timed out"
        case .signalingIncomingMessageInvalid: "Invalid signaling message"
        case .signalingServerBusy: "Video server is busy"
        case .roomNameInvalid: "Room name is invalid"
        case .roomNameTooLong: "Room name is too long"
        case .roomNameCharsInvalid: "Room name contains invalid characters"
        case .roomMaxParticipantsExceeded: "Room contains too many Participants"
        case .roomNotFound: "Room not found"
        case .roomMaxParticipantsOutOfRange: "MaxParticipants is out of range"
        case .roomTimeoutOutOfRange: "Timeout is out of range"
        case .roomStatusInvalid: "Status is invalid"
        case .roomExists: "Room exists"
        case .roomCompleted: "Room completed"
        case .participantIdentityInvalid: "Participant identity is invalid"
        case .participantIdentityTooLong: "Participant identity is too long"
        case .participantIdentityCharsInvalid: "Participant identity contains invalid characters"
        case .participantMaxTracksExceeded: "Participant has too many Tracks"
        case .participantNotFound: "Participant not found"
        case .participantDuplicateIdentity: "Participant disconnected because of duplicate identity"
        case .participantRemoved: "Participant removed from the Room"
        case .trackInvalid: "Track is invalid"
        case .trackNameInvalid: "Track name is invalid"
        case .trackNameTooLong: "Track name is too long"
        case .trackNameIsDuplicated: "Track name is duplicated"
        case .clientLocalDescFailed: "Client is unable to create or apply a local media description"
        case .serverLocalDescFailed: "Server is unable to create or apply a local media description"
        case .clientRemoteDescFailed: "Client is unable to apply a remote media description"
        case .serverRemoteDescFailed: "Server is unable to apply a remote media description"
        case .noSupportedCodec: "No supported codec"
        case .mediaConnectionError: "Media connection failed or Media activity ceased"
        case .mediaDTLSTransportFailed: "Media connection failed due to DTLS handshake failure"
        }
    }
}
