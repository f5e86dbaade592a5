@testable import AdminAPI
import Foundation
import Rooms
import Testing
import Node

/// 2026-11-21 10:30:00 UTC.
let t0 = Date(timeIntervalSince1970: 1_795_257_000)

@Suite struct WebhookSignatureTests {
    // Vectors computed once by hand with
    //   printf '%s' '<text>' | openssl dgst -sha256 -hmac devsecret -binary | base64
    @Test func formSignatureMatchesOpenSSL() {
        // Parameters given unsorted: the signature sorts them by name.
        let parameters = [
            (name: "StatusCallbackEvent", value: "room-created"), (name: "RoomSid", value: "RM0123"),
            (name: "SequenceNumber", value: "0"), (name: "RoomName", value: "standup"),
        ]
        let signature = WebhookSignature.sign(url: "https://example.com/hooks?x=1", parameters: parameters, secret: "devsecret")
        #expect(signature == "KrSbJFcua2i6C/pdcuJEG8KHhmJtaEnNVLJpCtLqpTc=")
        #expect(WebhookSignature.isValid(signature, url: "https://example.com/hooks?x=1", parameters: parameters, secret: "devsecret"))
        #expect(!WebhookSignature.isValid(signature, url: "https://example.com/hooks?x=2", parameters: parameters, secret: "devsecret"))
        #expect(!WebhookSignature.isValid(signature, url: "https://example.com/hooks?x=1", parameters: parameters, secret: "other"))
    }

    @Test func jsonSignatureMatchesOpenSSL() {
        let signature = WebhookSignature.sign(url: "https://example.com/msg", body: Data(#"{"Content":"hi"}"#.utf8), secret: "devsecret")
        #expect(signature == "55y7m1dtwKGwLNln2OsEYsve3Z5cBkp1XgdmJnSEnQM=")
    }

    @Test func rfc2822Dates() {
        #expect(RFC2822Date.string(from: t0) == "Sat, 21 Nov 2026 10:30:00 +0000")
        #expect(RFC2822Date.string(from: t0.addingTimeInterval(0.999)) == "Sat, 21 Nov 2026 10:30:00 +0000")
        #expect(RFC2822Date.string(from: Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 +0000")
        #expect(RFC2822Date.string(from: Date(timeIntervalSince1970: -1)) == "Wed, 31 Dec 1969 23:59:59 +0000")
        // 2024-02-29 12:05:09 UTC (a leap day)
        #expect(RFC2822Date.string(from: Date(timeIntervalSince1970: 1_709_208_309)) == "Thu, 29 Feb 2024 12:05:09 +0000")
        // 2000-03-01 (century leap year boundary)
        #expect(RFC2822Date.string(from: Date(timeIntervalSince1970: 951_868_800)) == "Wed, 01 Mar 2000 00:00:00 +0000")
    }

    @Test func eventParametersAreSortedAndOmitAbsentOnes() {
        let room = RoomRecord(sid: RoomSID(unchecked: "RM1"), uniqueName: "standup", dateCreated: t0)
        let created = WebhookEvent.room(.roomCreated, room, at: t0).parameters(sequenceNumber: 0)
        #expect(created.map(\.name) == ["RoomName", "RoomSid", "RoomStatus", "SequenceNumber", "StatusCallbackEvent", "Timestamp"])
        #expect(created.map(\.value) == ["standup", "RM1", "in-progress", "0", "room-created", "Sat, 21 Nov 2026 10:30:00 +0000"])

        let alice = ParticipantRecord(sid: ParticipantSID(unchecked: "PA1"), roomSID: RoomSID(unchecked: "RM1"), identity: "alice", dateCreated: t0)
            .disconnected(at: t0.addingTimeInterval(42))
        let left = WebhookEvent.participant(.participantDisconnected, alice, in: room, at: t0).parameters(sequenceNumber: 7)
        #expect(Dictionary(uniqueKeysWithValues: left.map { ($0.name, $0.value) }) == [
            "ParticipantDuration": "42", "ParticipantIdentity": "alice", "ParticipantSid": "PA1",
            "ParticipantStatus": "disconnected", "RoomName": "standup", "RoomSid": "RM1",
            "RoomStatus": "in-progress", "SequenceNumber": "7",
            "StatusCallbackEvent": "participant-disconnected", "Timestamp": "Sat, 21 Nov 2026 10:30:00 +0000",
        ])

        let track = PublishedTrackRecord(sid: TrackSID(unchecked: "MT1"), participantSID: ParticipantSID(unchecked: "PA1"), roomSID: RoomSID(unchecked: "RM1"), name: "cam", kind: .video, dateCreated: t0)
        let added = WebhookEvent.track(.trackAdded, track, of: alice, in: room, at: t0).parameters(sequenceNumber: 1)
        #expect(added.first { $0.name == "TrackKind" }?.value == "video")
        #expect(added.first { $0.name == "TrackName" }?.value == "cam")
        #expect(added.map(\.name) == added.map(\.name).sorted())

        let ended = WebhookEvent.room(.roomEnded, room.ended(.completed, at: t0.addingTimeInterval(90)), at: t0)
            .parameters(sequenceNumber: 9)
        #expect(ended.first { $0.name == "RoomDuration" }?.value == "90")
        #expect(ended.first { $0.name == "RoomStatus" }?.value == "completed")
    }

    @Test func formEncodingEscapesEverythingButUnreserved() {
        #expect(FormEncoding.encode([("A b", "x/y?z&w=é~._-")]) == "A%20b=x%2Fy%3Fz%26w%3D%C3%A9~._-")
    }

    @Test func messageBodyIsSortedJSONWithRFC2822Timestamp() throws {
        let message = MessageCallback(
            contentType: "application/json", content: #"{"k":1}"#, sequenceNumber: 3,
            participantSid: "PA1", roomSid: "RM1", timestamp: t0, sid: "ME1")
        let body = String(decoding: message.jsonBody(), as: UTF8.self)
        #expect(body == #"{"Content":"{\"k\":1}","ContentType":"application/json","ParticipantSid":"PA1","RoomSid":"RM1","SequenceNumber":3,"Sid":"ME1","Timestamp":"Sat, 21 Nov 2026 10:30:00 +0000"}"#)
    }

    @Test func methodFromStatusCallbackMethod() {
        #expect(WebhookOutbox.Method("get") == .get)
        #expect(WebhookOutbox.Method("POST") == .post)
        #expect(WebhookOutbox.Method(nil) == .post)
    }
}
