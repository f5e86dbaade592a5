import Foundation

/// The JSON codec of the signaling WebSocket (PROTOCOL.md sections 1 and 3):
/// client frames in, server frames out, both through Codable. Pure
/// functions; the session actor owns the socket.
public enum SignalingCodec {
    /// Client frames are capped at 64 KiB (PROTOCOL.md section 1): a publish
    /// offer for 16 tracks is about 10 KB, a message at most 10,240 bytes of
    /// content plus escaping.
    public static let maxFrameBytes = 65_536

    /// Decodes one client text frame. Never throws and never traps: every
    /// input maps to a request, an ignored unknown type, or a 53003 verdict.
    public static func decode(_ frame: String) -> DecodedFrame {
        let size = frame.utf8.count
        guard size <= maxFrameBytes else {
            // Not parsed at all, so no id to echo: parsing is what the cap protects.
            return .invalid(id: nil, .invalidMessage("frame of \(size) bytes is over the \(maxFrameBytes)-byte limit"))
        }
        do {
            // JSONDecoder (swift-foundation) limits nesting to 512 levels and
            // reports every malformation as an error, so no input traps here.
            return try JSONDecoder().decode(ClientFrame.self, from: Data(frame.utf8)).verdict
        } catch {
            return .invalid(id: nil, SignalingError(decoding: error))
        }
    }

    /// The JSON text of one server frame, as PROTOCOL.md writes it: `type`
    /// first, absent optionals omitted (only `dominantSpeaker` sends an
    /// explicit `null`). Server frames have no size cap.
    ///
    /// JSONEncoder keeps no key order (swift-foundation writes a hash map's
    /// order, different in every process), so `type` is written here and
    /// JSONEncoder writes the rest, keys sorted so that a frame's text is
    /// the same in every run. `type` comes first because every example of
    /// PROTOCOL.md writes it first and readers of logs and captures look for
    /// it there; it is one of our own identifiers, so it needs no escaping.
    public static func encode(_ message: ServerMessage) -> String {
        let encoder = JSONEncoder()
        // Sorted for stable text; slashes unescaped as before (`wss://node2/v1/signal`).
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let fields: Data
        do {
            fields = try encoder.encode(ServerMessage.Fields(message: message))
        } catch {
            // Only non-finite floating-point values fail to encode, and server frames carry none.
            preconditionFailure("a server frame failed to encode: \(error)")
        }
        // `fields` is `{}` or `{"k":v,…}`: splice `"type":"…"` in after the brace.
        var text = #"{"type":""# + message.type + #"""#
        text += fields.count > 2 ? "," + String(decoding: fields.dropFirst(), as: UTF8.self) : "}"
        return text
    }
}
