import Packets
import SFU
import WebRTC

extension MediaStatistics {
    /// The media metrics in Prometheus' text format (version 0.0.4), with the
    /// names DESIGN.md ("Metrics") fixes.
    public var prometheusText: String {
        var out = PrometheusText()
        let kinds: [(String, Packets.MediaKind)] = [("audio", .audio), ("video", .video)]
        out.family("vroom_packets_received_total", "RTP packets received from publishers.", "counter")
        for (label, i) in kinds { out.sample("vroom_packets_received_total", ["kind": label], router.packetsReceived[i]) }
        out.family("vroom_packets_forwarded_total", "RTP packets sent to subscribers.", "counter")
        for (label, i) in kinds { out.sample("vroom_packets_forwarded_total", ["kind": label], router.packetsForwarded[i]) }
        out.family("vroom_bytes_forwarded_total", "RTP bytes sent to subscribers (before SRTP).", "counter")
        for (label, i) in kinds { out.sample("vroom_bytes_forwarded_total", ["kind": label], router.bytesForwarded[i]) }
        out.family("vroom_packets_dropped_total", "Datagrams and packets dropped, by reason.", "counter")
        for reason in DropReason.allCases {
            out.sample("vroom_packets_dropped_total", ["reason": reason.metricLabel], router.dropped(reason))
        }
        let transportReasons: [(TransportDropReason, String)] = [
            (.malformed, "malformed_datagram"), (.stunIntegrity, "stun_integrity"),
            (.stunUnknownUsername, "stun_unknown_username"), (.unvalidatedAddress, "unvalidated_address"),
            (.notConnected, "not_connected"), (.srtpAuth, "srtp_auth"), (.replay, "replay"), (.dtls, "dtls"),
        ]
        for (reason, label) in transportReasons {
            out.sample("vroom_packets_dropped_total", ["reason": label], transport[dropped: reason])
        }
        out.sample("vroom_packets_dropped_total", ["reason": "unknown_tuple"], unknownTuple)
        out.sample("vroom_packets_dropped_total", ["reason": "truncated"], truncated)
        out.sample("vroom_packets_dropped_total", ["reason": "unexpected"], unexpected)
        // ICE-TCP: whole frames a slow reader's full write buffer refused.
        out.sample("vroom_packets_dropped_total", ["reason": "tcp_slow_reader"], tcp.framesDroppedSlowReader)
        // Rooms spread over workers: a full ring, a room the worker left.
        out.sample("vroom_packets_dropped_total", ["reason": "relay_full"], relayDropped)
        out.sample("vroom_packets_dropped_total", ["reason": "relay_unknown"], relayUnknown)
        out.family(
            "vroom_relay_packets_total",
            "Packets of a room's publishers its home worker handed to the other workers holding some of its subscribers (out), and that those took (in).",
            "counter")
        out.sample("vroom_relay_packets_total", ["direction": "out"], relayed)
        out.sample("vroom_relay_packets_total", ["direction": "in"], relayReceived)
        out.family("vroom_nack_received_total", "NACK feedback received from subscribers.", "counter")
        out.sample("vroom_nack_received_total", [:], router.nackReceived)
        out.family("vroom_retransmissions_total", "Packets resent from the NACK history.", "counter")
        out.sample("vroom_retransmissions_total", [:], router.retransmissions)
        out.family("vroom_nack_sent_total", "NACKs sent to publishers for packets the SFU missed.", "counter")
        out.sample("vroom_nack_sent_total", [:], router.nackSent)
        out.family("vroom_pli_sent_total", "Keyframe requests (PLI) sent to publishers.", "counter")
        out.sample("vroom_pli_sent_total", [:], router.pliSent)
        out.family("vroom_transport_cc_feedback_sent_total", "Transport-wide congestion control feedback packets sent.", "counter")
        out.sample("vroom_transport_cc_feedback_sent_total", [:], router.transportCCFeedbackSent)
        out.family("vroom_layer_switches_total", "Spatial or temporal layer changes of subscribed tracks.", "counter")
        out.sample("vroom_layer_switches_total", [:], router.layerSwitches)
        out.family("vroom_probe_packets_total", "Bandwidth probe packets (padding) sent to subscribers.", "counter")
        out.sample("vroom_probe_packets_total", [:], router.probePacketsSent)
        out.family("vroom_tracks_switched_off", "Subscribed video tracks switched off now, by reason.", "gauge")
        for reason in SwitchOffReason.allCases {
            out.sample("vroom_tracks_switched_off", ["reason": reason.rawValue], UInt64(tracksSwitchedOff[reason] ?? 0))
        }
        out.family(
            "vroom_pacer_queue_delay_seconds",
            "Time packets held back by subscribers' pacers waited before they left (packets sent at once are not counted).",
            "summary")
        out.sample("vroom_pacer_queue_delay_seconds_sum", fraction: Double(router.pacerDelayNanoseconds) / 1e9)
        out.sample("vroom_pacer_queue_delay_seconds_count", [:], router.pacerHeldPackets)
        let estimates = router.subscriberEstimates
        out.family(
            "vroom_subscriber_estimate_bps", "Subscribers' downlink estimates in bits/s, observed once a second each.",
            "histogram")
        for (index, bound) in EstimateHistogram.bounds.enumerated() {
            out.sample("vroom_subscriber_estimate_bps_bucket", ["le": String(bound)], estimates.cumulative(index))
        }
        out.sample("vroom_subscriber_estimate_bps_bucket", ["le": "+Inf"], estimates.count)
        out.sample("vroom_subscriber_estimate_bps_sum", [:], estimates.sum)
        out.sample("vroom_subscriber_estimate_bps_count", [:], estimates.count)
        out.family("vroom_udp_datagrams_received_total", "Datagrams received on the media ports.", "counter")
        out.sample("vroom_udp_datagrams_received_total", [:], datagramsReceived)
        out.family("vroom_udp_datagrams_sent_total", "Datagrams sent from the media ports.", "counter")
        out.sample("vroom_udp_datagrams_sent_total", [:], datagramsSent)
        out.family("vroom_udp_send_failures_total", "Datagrams the kernel refused (buffer full, unreachable).", "counter")
        out.sample("vroom_udp_send_failures_total", [:], sendFailures)
        out.family("vroom_tcp_connections_accepted_total", "ICE-TCP connections accepted on the media ports.", "counter")
        out.sample("vroom_tcp_connections_accepted_total", [:], tcp.accepted)
        out.family(
            "vroom_tcp_connections_closed_total",
            "ICE-TCP connections the server closed or lost, by reason.", "counter")
        let closes: [(String, UInt64)] = [
            ("bad_length", tcp.closedBadLength), ("garbage", tcp.closedGarbage),
            ("handshake_timeout", tcp.closedHandshakeTimeout), ("unauthenticated_limit", tcp.closedUnauthenticatedLimit),
            ("idle", tcp.closedIdle), ("peer", tcp.closedByPeer),
        ]
        for (reason, value) in closes { out.sample("vroom_tcp_connections_closed_total", ["reason": reason], value) }
        out.family("vroom_tcp_connections", "ICE-TCP connections open now, by state.", "gauge")
        out.sample("vroom_tcp_connections", ["state": "authenticated"], UInt64(max(0, tcp.open - tcp.unauthenticated)))
        out.sample("vroom_tcp_connections", ["state": "unauthenticated"], UInt64(tcp.unauthenticated))
        out.family("vroom_tcp_frames_received_total", "RFC 4571 frames received on ICE-TCP connections.", "counter")
        out.sample("vroom_tcp_frames_received_total", [:], tcp.framesReceived)
        out.family("vroom_tcp_frames_sent_total", "RFC 4571 frames queued on ICE-TCP connections.", "counter")
        out.sample("vroom_tcp_frames_sent_total", [:], tcp.framesSent)
        out.family("vroom_tcp_buffered_bytes", "Bytes waiting in ICE-TCP write buffers.", "gauge")
        out.sample("vroom_tcp_buffered_bytes", [:], UInt64(tcp.bufferedBytes))
        out.family("vroom_media_connections", "PeerConnections on the media workers.", "gauge")
        out.sample("vroom_media_connections", [:], UInt64(connections))
        return out.text
    }
}

/// A Prometheus text-format writer (HELP, TYPE, samples).
public struct PrometheusText: Sendable {
    public private(set) var text = ""

    public init() {}

    public mutating func family(_ name: String, _ help: String, _ type: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    /// An unlabelled sample with a fractional value (a summary's sum).
    public mutating func sample(_ name: String, fraction value: Double) {
        text += "\(name) \(value)\n"
    }

    public mutating func sample(_ name: String, _ labels: [String: String], _ value: UInt64) {
        if labels.isEmpty {
            text += "\(name) \(value)\n"
        } else {
            let rendered = labels.sorted { $0.key < $1.key }.map { "\($0.key)=\"\(Self.escaped($0.value))\"" }
                .joined(separator: ",")
            text += "\(name){\(rendered)} \(value)\n"
        }
    }

    /// A label value as the text format wants it: backslash, double quote
    /// and line feed escaped.
    static func escaped(_ value: String) -> String {
        guard value.contains(where: { $0 == "\\" || $0 == "\"" || $0 == "\n" }) else { return value }
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}
