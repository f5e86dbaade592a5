/// The 48-bit SRTP packet index i = 2^16 * ROC + SEQ of an RTP packet,
/// estimated from its 16-bit sequence number and the highest index of its
/// stream so far (RFC 3711 section 3.3.1 and appendix A): the guess closest
/// to the highest, so a sequence number that wrapped moves the rollover
/// counter up and a late packet from before a wrap takes the ROC below.
enum SRTPPacketIndex {
    static let mask: UInt64 = 0xFFFF_FFFF_FFFF

    /// `highest` nil: the stream's first packet, whose ROC is 0 (both ends
    /// start there; RFC 3711 section 3.3.1).
    static func estimate(sequence: UInt16, highest: UInt64?) -> UInt64 {
        guard let highest else { return UInt64(sequence) }
        let roc = highest >> 16
        let last = Int(highest & 0xFFFF)
        let seq = Int(sequence)
        var guess = roc
        if last < 32_768 {
            if seq - last > 32_768 {
                // From before the wrap; with ROC 0 there is none (libsrtp
                // keeps ROC 0 too: the packet then fails the replay or MAC check).
                guard roc > 0 else { return UInt64(sequence) }
                guess = roc - 1
            }
        } else if last - 32_768 > seq {
            guess = roc + 1
        }
        return (guess << 16 | UInt64(sequence)) & mask
    }
}
