import Packets
import Testing

@testable import VroomClient

/// One tick's RTCP in as few compounds as fit a datagram, each starting
/// with a report.
@Suite struct RTCPBatchTests {
    /// The packets of each compound sent, by type name.
    final class Sent {
        var compounds: [[String]] = []
        var sizes: [Int] = []

        func take(_ bytes: UnsafeRawBufferPointer) {
            sizes.append(bytes.count)
            guard let compound = try? RTCPCompoundPacket(validating: bytes) else {
                compounds.append(["malformed"])
                return
            }
            compounds.append(compound.map { packet in
                switch try? packet.typed() {
                case .receiverReport(let rr)?: "RR\(rr.reports.count)"
                case .sourceDescription?: "SDES"
                case .genericNACK?: "NACK"
                case .pictureLossIndication?: "PLI"
                case .transportCCFeedback?: "TWCC"
                default: "other"
                }
            })
        }
    }

    static func feedback(_ count: Int) -> TransportCCFeedback {
        TransportCCFeedback(
            senderSSRC: SSRC(1), mediaSSRC: SSRC(2), baseSequenceNumber: 1, referenceTime: 0, feedbackPacketCount: 0,
            deltas: Array(repeating: 1000, count: count))
    }

    @Test func feedbackRidesBehindTheReportsOrAnEmptyReceiverReport() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)
        defer { buffer.deallocate() }
        let sent = Sent()
        let block = ReceptionReport(
            ssrc: SSRC(5), fractionLost: 0, cumulativeLost: 0, extendedHighestSequence: 1, jitter: 0, lastSR: 0,
            delaySinceLastSR: 0)

        // Reports due: they lead, the rest follows in the same compound.
        var batch = RTCPBatch(buffer: buffer, reporter: SSRC(1)) { sent.take($0) }
        batch.append(ReceiverReport(ssrc: SSRC(1), reports: [block]))
        batch.append(SourceDescription(source: SSRC(1), cname: "c"))
        batch.append(GenericNACK(senderSSRC: SSRC(1), mediaSSRC: SSRC(5), lostSequenceNumbers: [3]))
        batch.append(Self.feedback(20))
        batch.flush()
        #expect(sent.compounds == [["RR1", "SDES", "NACK", "TWCC"]])

        // No reports due: an empty RR first (RFC 4585 3.1).
        batch.append(Self.feedback(20))
        batch.append(PictureLossIndication(senderSSRC: SSRC(1), mediaSSRC: SSRC(5)))
        batch.flush()
        batch.flush()  // nothing left: nothing sent
        #expect(sent.compounds.last == ["RR0", "TWCC", "PLI"])
        #expect(batch.compoundsSent == 2)

        // Two large feedbacks do not fit one datagram: two compounds, each
        // led by a report and within 1,180 bytes.
        sent.compounds = []
        sent.sizes = []
        batch.append(Self.feedback(400))
        batch.append(Self.feedback(400))
        batch.flush()
        #expect(sent.compounds == [["RR0", "TWCC"], ["RR0", "TWCC"]])
        #expect(sent.sizes.allSatisfy { $0 <= RTCPBatch.maximumCompoundSize })
    }
}
