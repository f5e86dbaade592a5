/// One client text frame as JSONDecoder reads it: the codec's verdict,
/// reached in a single parse. The `id` is read first, so that every later
/// refusal (no `type`, a wrong field) can echo it (PROTOCOL.md section 1).
struct ClientFrame: Decodable {
    let verdict: DecodedFrame

    private enum Envelope: String, CodingKey {
        case id, type
    }

    init(from decoder: any Decoder) {
        let envelope: KeyedDecodingContainer<Envelope>
        do {
            envelope = try decoder.container(keyedBy: Envelope.self)
        } catch {
            verdict = .invalid(id: nil, .invalidMessage("not a JSON object"))
            return
        }
        let id: String?
        do {
            id = try envelope.decodeIfPresent(String.self, forKey: .id)
        } catch {
            // Its type still tells a join (refused, so the socket closes) from other requests.
            verdict = .invalid(id: nil, SignalingError(decoding: error), type: try? envelope.decode(String.self, forKey: .type))
            return
        }
        let type: String
        do {
            type = try envelope.decode(String.self, forKey: .type)
        } catch {
            verdict = .invalid(id: id, SignalingError(decoding: error))
            return
        }
        do {
            guard let message = try ClientMessage(type: type, from: decoder) else {
                // Forward compatible: a newer client's notice is ignored, its request refused.
                guard let id else {
                    verdict = .ignored(type: type)
                    return
                }
                verdict = .invalid(id: id, .invalidMessage("unknown type '\(type)'"), type: type)
                return
            }
            verdict = .request(message, id: id)
        } catch {
            verdict = .invalid(id: id, SignalingError(decoding: error), type: type)
        }
    }
}
