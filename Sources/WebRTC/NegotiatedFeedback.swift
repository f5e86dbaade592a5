import SDP

/// The RTCP feedback both sides agreed on for an m-line's primary payload
/// type (RFC 4585 `a=rtcp-fb`). The SFU sends NACK/PLI/FIR/REMB/transport-cc
/// feedback to a publisher, and honours them from a subscriber, only when
/// agreed here.
public struct NegotiatedFeedback: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// `nack` (generic NACK, RFC 4585 section 6.2.1).
    public static let nack = NegotiatedFeedback(rawValue: 1 << 0)
    /// `nack pli` (RFC 4585 section 6.3.1).
    public static let pli = NegotiatedFeedback(rawValue: 1 << 1)
    /// `ccm fir` (RFC 5104 section 4.3.1).
    public static let fir = NegotiatedFeedback(rawValue: 1 << 2)
    /// `goog-remb` (draft-alvestrand-rmcat-remb).
    public static let remb = NegotiatedFeedback(rawValue: 1 << 3)
    /// `transport-cc` (draft-holmer-rmcat-transport-wide-cc-extensions).
    public static let transportCC = NegotiatedFeedback(rawValue: 1 << 4)

    /// What the server takes on video (PROTOCOL.md section 5).
    public static let video: NegotiatedFeedback = [.nack, .pli, .fir, .remb, .transportCC]
    /// What the server takes on audio: transport-cc only (Chromium and
    /// Firefox offer it on Opus; nobody offers NACK for Opus).
    public static let audio: NegotiatedFeedback = [.transportCC]

    /// The kinds `feedback` lists, ignoring anything else (`trr-int`,
    /// `nack sli`, `ccm tmmbr`, ...).
    init(_ feedback: [SDPRTCPFeedback]) {
        var set: NegotiatedFeedback = []
        for line in feedback {
            if let member = Self.member(line) { set.insert(member) }
        }
        self = set
    }

    static func member(_ line: SDPRTCPFeedback) -> NegotiatedFeedback? {
        switch (line.type.lowercased(), line.parameter?.lowercased()) {
        case ("nack", nil): .nack
        case ("nack", "pli"): .pli
        case ("ccm", "fir"): .fir
        case ("goog-remb", nil): .remb
        case ("transport-cc", nil): .transportCC
        default: nil
        }
    }

    /// The `a=rtcp-fb` lines for `payloadType`, in Chromium's order.
    func lines(payloadType: UInt8) -> [SDPRTCPFeedback] {
        var lines: [SDPRTCPFeedback] = []
        if contains(.remb) { lines.append(SDPRTCPFeedback(payloadType: payloadType, type: "goog-remb")) }
        if contains(.transportCC) { lines.append(SDPRTCPFeedback(payloadType: payloadType, type: "transport-cc")) }
        if contains(.fir) { lines.append(SDPRTCPFeedback(payloadType: payloadType, type: "ccm", parameter: "fir")) }
        if contains(.nack) { lines.append(SDPRTCPFeedback(payloadType: payloadType, type: "nack")) }
        if contains(.pli) { lines.append(SDPRTCPFeedback(payloadType: payloadType, type: "nack", parameter: "pli")) }
        return lines
    }
}
