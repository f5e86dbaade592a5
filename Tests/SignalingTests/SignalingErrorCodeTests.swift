import Testing

@testable import Signaling

/// PROTOCOL.md section 4, row by row.
@Suite struct SignalingErrorCodeTests {
    static let table: [(Int, String)] = [
        (20101, "AccessTokenInvalid"), (20103, "AccessTokenIssuerInvalid"), (20104, "AccessTokenExpired"),
        (20105, "AccessTokenNotYetValid"), (20106, "AccessTokenGrantsInvalid"), (20107, "AccessTokenSignatureInvalid"),
        (53000, "SignalingConnectionError"), (53001, "SignalingConnectionDisconnected"),
        (53002, "SignalingConnectionTimeout"), (53003, "SignalingIncomingMessageInvalid"),
        (53006, "SignalingServerBusy"), (53100, "RoomNameInvalid"), (53101, "RoomNameTooLong"),
        (53102, "RoomNameCharsInvalid"), (53105, "RoomMaxParticipantsExceeded"), (53106, "RoomNotFound"),
        (53107, "RoomMaxParticipantsOutOfRange"), (53109, "RoomTimeoutOutOfRange"), (53112, "RoomStatusInvalid"),
        (53113, "RoomExists"), (53118, "RoomCompleted"), (53200, "ParticipantIdentityInvalid"),
        (53201, "ParticipantIdentityTooLong"), (53202, "ParticipantIdentityCharsInvalid"),
        (53203, "ParticipantMaxTracksExceeded"), (53204, "ParticipantNotFound"),
        (53205, "ParticipantDuplicateIdentity"), (53216, "ParticipantRemoved"), (53300, "TrackInvalid"),
        (53301, "TrackNameInvalid"), (53302, "TrackNameTooLong"), (53304, "TrackNameIsDuplicated"),
        (53400, "ClientLocalDescFailed"), (53401, "ServerLocalDescFailed"), (53402, "ClientRemoteDescFailed"),
        (53403, "ServerRemoteDescFailed"), (53404, "NoSupportedCodec"), (53405, "MediaConnectionError"),
        (53407, "MediaDTLSTransportFailed"),
    ]

    @Test func everyCodeOfTheTableHasItsName() {
        #expect(SignalingErrorCode.allCases.count == Self.table.count)
        for (code, name) in Self.table {
            let known = SignalingErrorCode(rawValue: code)
            #expect(known?.name == name, "\(code)")
        }
    }

    @Test func everyCodeHasAHumanMessage() {
        let messages = SignalingErrorCode.allCases.map(\.message)
        #expect(messages.allSatisfy { !$0.isEmpty })
        #expect(Set(messages).count == messages.count, "messages tell codes apart")
        #expect(SignalingErrorCode.roomNotFound.message == "Room not found")
    }

    @Test func errorDefaultsToTheTableMessage() {
        #expect(SignalingError(.roomCompleted).message == "Room completed")
        #expect(SignalingError(.roomCompleted, message: "ended by REST").message == "ended by REST")
        #expect(SignalingError.invalidMessage("x").code == .signalingIncomingMessageInvalid)
    }
}
