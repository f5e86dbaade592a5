import Packets

extension RouterCounters {
    /// Adds `other` to these counters (a node's totals over its routers,
    /// including routers that are gone).
    public mutating func add(_ other: RouterCounters) {
        for kind in [MediaKind.audio, .video] {
            packetsReceived[kind] &+= other.packetsReceived[kind]
            packetsForwarded[kind] &+= other.packetsForwarded[kind]
            bytesForwarded[kind] &+= other.bytesForwarded[kind]
        }
        for reason in DropReason.allCases { drops[reason] &+= other.drops[reason] }
        nackReceived &+= other.nackReceived
        retransmissions &+= other.retransmissions
        nackMisses &+= other.nackMisses
        pliSent &+= other.pliSent
        nackSent &+= other.nackSent
        rtcpReceived &+= other.rtcpReceived
        rtcpSent &+= other.rtcpSent
        transportCCFeedbackSent &+= other.transportCCFeedbackSent
        probePacketsSent &+= other.probePacketsSent
        layerSwitches &+= other.layerSwitches
        subscriberEstimates.add(other.subscriberEstimates)
        pacerHeldPackets &+= other.pacerHeldPackets
        pacerDelayNanoseconds &+= other.pacerDelayNanoseconds
    }
}
