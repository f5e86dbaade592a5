import Foundation
@testable import Rooms
import Testing
import VroomTesting

@Suite struct SIDTests {
    @Test func generatedSIDsHaveThePrefixAnd32LowercaseHexDigits() {
        var generator = SeededGenerator(seed: 7)
        let room = RoomSID.random(using: &generator)
        let participant = ParticipantSID.random(using: &generator)
        let track = TrackSID.random(using: &generator)
        let message = MessageSID.random(using: &generator)
        for (value, prefix) in [(room.rawValue, "RM"), (participant.rawValue, "PA"), (track.rawValue, "MT"), (message.rawValue, "ME")] {
            #expect(value.count == 34)
            #expect(value.hasPrefix(prefix))
            #expect(value.dropFirst(2).allSatisfy { "0123456789abcdef".contains($0) })
        }
        #expect(RoomSID(validating: room.rawValue) == room)
        #expect(TrackSID(validating: track.rawValue) == track)
    }

    @Test func validationRefusesWrongPrefixLengthAndCase() {
        let good = "RM" + String(repeating: "a1", count: 16)
        #expect(RoomSID(validating: good) != nil)
        #expect(ParticipantSID(validating: good) == nil)
        #expect(RoomSID(validating: "RM" + String(repeating: "A1", count: 16)) == nil)
        #expect(RoomSID(validating: good + "0") == nil)
        #expect(RoomSID(validating: String(good.dropLast())) == nil)
        #expect(RoomSID(validating: "RM" + String(repeating: "g1", count: 16)) == nil)
        #expect(RoomSID(validating: "") == nil)
    }

    @Test func sameSeedSameSIDsDifferentSeedDifferentSIDs() {
        var a = SeededGenerator(seed: 1), b = SeededGenerator(seed: 1), c = SeededGenerator(seed: 2)
        let x = RoomSID.random(using: &a)
        #expect(x == RoomSID.random(using: &b))
        #expect(x != RoomSID.random(using: &c))
        #expect(RoomSID.random(using: &a) != x)
    }

    @Test func sessionTokensAre64HexDigitsAndNotLogged() {
        var generator = SeededGenerator(seed: 3)
        let token = SessionToken.random(using: &generator)
        #expect(token.rawValue.count == 64)
        #expect(!token.description.contains(token.rawValue))
    }

    @Test func errorCodesMatchTheProtocolTable() {
        let expected: [RoomError: Int] = [
            .accessTokenGrantsInvalid: 20106, .signalingConnectionDisconnected: 53001, .signalingServerBusy: 53006,
            .roomNameInvalid: 53100, .roomNameTooLong: 53101, .roomNameCharsInvalid: 53102,
            .roomMaxParticipantsExceeded: 53105, .roomNotFound: 53106, .roomMaxParticipantsOutOfRange: 53107,
            .roomTimeoutOutOfRange: 53109, .roomStatusInvalid: 53112, .roomExists: 53113, .roomCompleted: 53118,
            .participantIdentityInvalid: 53200, .participantIdentityTooLong: 53201,
            .participantIdentityCharsInvalid: 53202, .participantMaxTracksExceeded: 53203,
            .participantNotFound: 53204, .participantDuplicateIdentity: 53205, .participantRemoved: 53216,
            .trackInvalid: 53300, .trackNameInvalid: 53301, .trackNameTooLong: 53302,
            .trackNameIsDuplicated: 53304, .trackNotFound: 53300,
        ]
        for error in RoomError.allCases {
            #expect(error.code == expected[error], "\(error)")
            #expect(!error.message.isEmpty)
        }
        #expect(RoomError.roomNotFound.httpStatus == 404)
        #expect(RoomError.participantNotFound.httpStatus == 404)
        #expect(RoomError.roomExists.httpStatus == 409)
        #expect(RoomError.roomMaxParticipantsOutOfRange.httpStatus == 400)
        #expect(MessageRefusal.allCases.map(\.code) == [409, 400, 413, 429])
        #expect(MessageRefusal.allCases.map(\.reason) == ["not-joined", "invalid-content", "payload-too-large", "rate-limited"])
    }
}
