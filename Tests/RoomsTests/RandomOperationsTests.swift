import Foundation
@testable import Rooms
import Testing
import VroomTesting

/// Thousands of random operations from a seeded generator, checking the
/// invariants of the room logic after every step. A failure prints the seed
/// and the step, so it can be replayed.
@Suite struct RandomOperationsTests {
    static let identities = ["alice", "bob", "carol", "dave", "eve", "frank"]
    static let roomNames = ["one", "two", "three"]
    static let trackNames = ["mic", "camera", "screen", "music"]

    struct Driver {
        var service: RoomService
        var random: SeededGenerator
        var now = t0
        var tokens: [(SessionToken, String)] = []
        var callbackSequence: [RoomSID: Int] = [:]
        var messageSequence: [ParticipantSID: Int] = [:]
        var step = 0
        var newTracks = 0
        let seed: UInt64

        init(seed: UInt64) {
            self.seed = seed
            random = SeededGenerator(seed: seed &+ 1_000)
            service = makeService({
                $0.maxTracksPerParticipant = 3
                $0.maxParticipantsPerNode = 9
                $0.defaultMaxParticipants = 4
                $0.maxParticipantsLimit = 5
                $0.emptyRoomTimeout = 60
                $0.unusedRoomTimeout = 90
            }, seed: seed)
        }

        mutating func pick<T>(_ values: [T]) -> T? {
            values.isEmpty ? nil : values[Int.random(in: 0..<values.count, using: &random)]
        }

        var current: [ParticipantSID] {
            service.participants.values.filter(\.isCurrent).map(\.sid).sorted()
        }

        mutating func randomRules() -> [SubscribeRule] {
            switch Int.random(in: 0..<5, using: &random) {
            case 0: return SubscribeRule.includeAll
            case 1: return SubscribeRule.excludeAll
            case 2: return []
            default:
                return (0..<Int.random(in: 1...3, using: &random)).map { _ in
                    SubscribeRule(
                        type: Bool.random(using: &random) ? .include : .exclude,
                        all: Int.random(in: 0..<4, using: &random) == 0,
                        kind: Bool.random(using: &random) ? pick(TrackKind.allCases) : nil,
                        publisher: Bool.random(using: &random) ? pick(RandomOperationsTests.identities) : nil,
                        track: Int.random(in: 0..<3, using: &random) == 0 ? pick(RandomOperationsTests.trackNames) : nil)
                }
            }
        }

        /// Each participant's status and subscribed set.
        func snapshot() -> [ParticipantSID: (ParticipantStatus, [TrackSID])] {
            Dictionary(uniqueKeysWithValues: service.participants.values.map { ($0.sid, ($0.status, $0.subscribed)) })
        }

        /// One random operation; returns its events (refusals return none).
        mutating func operate() -> [RoomEvent] {
            var events: [RoomEvent] = []
            let participant = pick(current)
            do {
                switch Int.random(in: 0..<15, using: &random) {
                case 0, 1:
                    let identity = pick(RandomOperationsTests.identities)!
                    let outcome = try service.join(roomName: pick(RandomOperationsTests.roomNames)!, identity: identity,
                                                   rules: Bool.random(using: &random) ? nil : randomRules(), now: now)
                    tokens.append((outcome.value.sessionToken, identity))
                    events += outcome.events
                case 2:
                    if let (token, identity) = pick(tokens) {
                        let outcome = try service.resume(sessionToken: token, identity: Int.random(in: 0..<8, using: &random) == 0 ? "mallory" : identity, now: now)
                        tokens.append((outcome.value.sessionToken, identity))
                        events += outcome.events
                    }
                case 3:
                    if let participant { events += service.drop(participant: participant, now: now) }
                case 4:
                    if let participant, Int.random(in: 0..<3, using: &random) == 0 { events += service.leave(participant: participant, now: now) }
                case 5, 6:
                    if let participant {
                        let count = Int.random(in: 0...4, using: &random)
                        // Mostly distinct names; now and then a duplicate (53304).
                        var names = RandomOperationsTests.trackNames.shuffled(using: &random)
                        if Int.random(in: 0..<10, using: &random) == 0 { names[1] = names[0] }
                        let requests = (0..<count).map { index in
                            TrackRequest(mid: String(index), name: names[index],
                                         kind: Int.random(in: 0..<20, using: &random) == 0 ? "data" : (Bool.random(using: &random) ? "audio" : "video"),
                                         enabled: [true, false, nil].randomElement(using: &random)!)
                        }
                        let outcome = try service.publish(participant: participant, tracks: requests, now: now)
                        newTracks += outcome.value.filter(\.isNew).count
                        events += outcome.events
                    }
                case 7:
                    if let participant, let track = pick(service.publications(of: participant)) {
                        events += try service.unpublish(participant: participant, track: track.sid, now: now)
                    }
                case 8:
                    if let participant, let track = pick(service.publications(of: participant)) {
                        events += try service.setTrackEnabled(participant: participant, track: track.sid, enabled: Bool.random(using: &random), now: now)
                    }
                case 9:
                    if let participant {
                        events += try service.interruption(participant: participant, kind: pick(InterruptionKind.allCases)!,
                                                           state: pick(InterruptionState.allCases)!, now: now)
                    }
                case 10:
                    if let participant { events += try service.updateSubscriptions(participant: participant, rules: randomRules(), now: now) }
                case 11:
                    let to: [String]? = Bool.random(using: &random) ? nil : [pick(RandomOperationsTests.identities)!]
                    let outcome = try service.sendMessage(from: participant, content: "{\"n\":\(step)}", contentType: "application/json", to: to, now: now)
                    if let from = outcome.value.from {
                        #expect(outcome.value.sequenceNumber == messageSequence[from, default: 0], "seed \(seed) step \(step)")
                        messageSequence[from] = outcome.value.sequenceNumber + 1
                    }
                    events += outcome.events
                case 12:
                    events += try service.createRoom(uniqueName: pick(RandomOperationsTests.roomNames), maxParticipants: Int.random(in: 1...5, using: &random),
                                                     statusCallback: "https://example.test/cb", now: now).events
                case 13:
                    if Int.random(in: 0..<4, using: &random) == 0 {
                        events += try service.completeRoom(pick(RandomOperationsTests.roomNames)!, now: now).events
                    }
                default:
                    if let participant, let record = service.participantRecord(participant) {
                        events += try service.removeParticipant(room: record.roomSID.rawValue, participant: record.identity, now: now).events
                    }
                }
            } catch {
                // Refusals are part of the game; the invariants say they changed nothing harmful.
            }
            step += 1
            return events
        }

        /// Checks every invariant; `before` is each participant's status and subscribed set before the step.
        mutating func check(events: [RoomEvent], before: [ParticipantSID: (ParticipantStatus, [TrackSID])]) {
            let where_ = "seed \(seed) step \(step)"
            var seen = Set<ParticipantSID>()
            var currentCount = 0
            for room in service.rooms.values {
                var identities = Set<String>()
                if room.status != .inProgress { #expect(room.current.isEmpty, "\(where_)") }
                for sid in room.current {
                    #expect(seen.insert(sid).inserted, "participant in two rooms' lists, \(where_)")
                    let participant = service.participants[sid]!
                    #expect(participant.isCurrent && participant.roomSID == room.sid, "\(where_)")
                    #expect(identities.insert(participant.identity).inserted, "duplicate identity, \(where_)")
                    currentCount += 1
                }
                #expect(room.current.count <= room.maxParticipants, "\(where_)")
            }
            #expect(currentCount == service.participantCount, "\(where_)")
            // Only what is live is kept: rooms in progress, current sessions
            // and their tokens (ended ones are history's).
            #expect(service.rooms.values.allSatisfy { $0.status == .inProgress }, "\(where_)")
            #expect(service.participants.count == currentCount, "\(where_)")
            #expect(service.tokens.count == currentCount, "\(where_)")
            #expect(currentCount <= 9, "\(where_)")
            for participant in service.participants.values {
                #expect(participant.isCurrent == seen.contains(participant.sid), "\(where_)")
                if !participant.isCurrent { #expect(participant.publications.isEmpty && participant.subscribed.isEmpty, "\(where_)") }
                #expect(Set(participant.publications.map(\.name)).count == participant.publications.count, "\(where_)")
                #expect(participant.publications.count <= 3, "\(where_)")
                // Effective enabled = publisher enabled AND not interrupted.
                for record in service.publications(of: participant.sid) {
                    let interrupted = record.kind == .video ? participant.cameraInterrupted : participant.audioInterrupted
                    #expect(record.enabled == (record.publisherEnabled && !interrupted), "\(where_)")
                }
                // Subscribed set = rule evaluation, recomputed here from public reads.
                if participant.isCurrent {
                    var expected: [TrackSID] = []
                    for other in service.rooms[participant.roomSID]!.current where other != participant.sid {
                        let publisher = service.participants[other]!
                        for track in service.publications(of: other) where SubscribeRule.evaluate(
                            participant.rules, publisherIdentity: publisher.identity, publisherSID: other,
                            trackSID: track.sid, trackName: track.name, kind: track.kind) {
                            expected.append(track.sid)
                        }
                    }
                    #expect(service.subscribedTracks(of: participant.sid).map(\.sid) == expected, "\(where_)")
                }
            }
            // Notices: never to a removed participant (but its own `disconnected`),
            // only to connected ones; `disconnected` only to one that ended.
            for event in events {
                guard case .notice(let to, let notice) = event else { continue }
                let status = service.participants[to]?.status
                if case .disconnected = notice {
                    #expect(status == .disconnected || status == nil, "\(where_)")
                } else {
                    #expect(status == .connected, "notice \(notice) to \(String(describing: status)), \(where_)")
                }
            }
            // Every connected participant whose subscribed set changed was told.
            for (sid, (status, subscribed)) in before where status == .connected {
                guard let now = service.participants[sid], now.status == .connected, now.subscribed != subscribed else { continue }
                #expect(events.notices(to: sid).contains(.subscriptionsChanged), "\(where_)")
            }
            // Webhooks are numbered per room from 0 without gaps.
            for callback in events.callbacks {
                let expected = callbackSequence[callback.roomSID, default: 0]
                #expect(callback.sequenceNumber == expected, "\(where_)")
                callbackSequence[callback.roomSID] = expected + 1
            }
        }
    }

    @Test(arguments: [1, 2, 3, 42] as [UInt64])
    func invariantsHoldUnderRandomOperations(seed: UInt64) {
        var driver = Driver(seed: seed)
        var joins = 0, removals = 0
        for _ in 0..<2_500 {
            driver.now = driver.now.addingTimeInterval(Double(Int.random(in: 0...12, using: &driver.random)))
            // The owner calls tick whenever the clock passed nextDeadline.
            if let deadline = driver.service.nextDeadline, deadline <= driver.now {
                let before = driver.snapshot()
                let events = driver.service.tick(now: driver.now)
                driver.check(events: events, before: before)
                removals += events.filter { if case .participantRemoved = $0 { true } else { false } }.count
                if let next = driver.service.nextDeadline { #expect(next > driver.now, "seed \(seed)") }
            }
            let before = driver.snapshot()
            let events = driver.operate()
            for event in events {
                switch event {
                case .participantRecord(let record) where record.status == .connected: joins += 1
                case .participantRemoved: removals += 1
                default: break
                }
            }
            driver.check(events: events, before: before)
        }
        // The walk must actually exercise the state machine.
        #expect(joins > 100 && driver.newTracks > 100 && removals > 50, "seed \(seed): joins \(joins) new tracks \(driver.newTracks) removals \(removals)")
        // Everyone drops; after a tick far in the future nothing is left running.
        for sid in driver.current { _ = driver.service.drop(participant: sid, now: driver.now) }
        let end = driver.now.addingTimeInterval(3_600)
        let before = driver.snapshot()
        let events = driver.service.tick(now: end)
        driver.check(events: events, before: before)
        #expect(driver.service.participantCount == 0)
        #expect(driver.service.nextDeadline == nil)
        #expect(driver.service.rooms.isEmpty && driver.service.retainedSessionCount == 0, "seed \(seed)")
    }
}
