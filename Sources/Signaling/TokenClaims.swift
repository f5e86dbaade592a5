import Foundation

/// One claim of an access token as JSONDecoder found it. The verifier reads
/// claims leniently and refuses them one by one, in the order of PROTOCOL.md
/// section 2 (signature before `exp` before grants), each with its own code:
/// a whole failing `Decodable` struct could not tell a numeric `kid` (20101)
/// from a missing identity (20106).
enum TokenClaim<Value: Decodable> {
    /// Missing or `null`.
    case absent
    case value(Value)
    /// Present with another JSON type.
    case wrongType

    var value: Value? {
        if case .value(let value) = self { value } else { nil }
    }
}

extension KeyedDecodingContainer {
    /// The claim at `key`; never throws.
    func claim<Value: Decodable>(_: Value.Type, forKey key: Key) -> TokenClaim<Value> {
        guard contains(key), (try? decodeNil(forKey: key)) == false else { return .absent }
        guard let value = try? decode(Value.self, forKey: key) else { return .wrongType }
        return .value(value)
    }
}

/// The JOSE header: `{"alg":"HS256","typ":"JWT","kid":"SK…"}`.
struct TokenHeader: Decodable {
    var alg: TokenClaim<String>
    var kid: TokenClaim<String>
    /// RFC 7515 4.1.11: extensions listed in `crit` must be understood; we understand none.
    var hasCrit: Bool

    private enum Key: String, CodingKey {
        case alg, kid, crit
    }

    init(from decoder: any Decoder) throws {
        let header = try decoder.container(keyedBy: Key.self)
        alg = header.claim(String.self, forKey: .alg)
        kid = header.claim(String.self, forKey: .kid)
        hasCrit = header.contains(.crit)
    }
}

/// The payload: `{iss, sub, jti, nbf, exp, grants: {identity, video: {room}}}`.
struct TokenPayload: Decodable {
    var iss: TokenClaim<String>
    var sub: TokenClaim<String>
    var jti: TokenClaim<String>
    var exp: TokenClaim<Double>
    var nbf: TokenClaim<Double>
    var grants: TokenClaim<Grants>

    struct Grants: Decodable {
        var identity: TokenClaim<String>
        var video: TokenClaim<VideoGrant>

        private enum Key: String, CodingKey {
            case identity, video
        }

        init(from decoder: any Decoder) throws {
            let grants = try decoder.container(keyedBy: Key.self)
            identity = grants.claim(String.self, forKey: .identity)
            video = grants.claim(VideoGrant.self, forKey: .video)
        }
    }

    struct VideoGrant: Decodable {
        var room: TokenClaim<String>

        private enum Key: String, CodingKey {
            case room
        }

        init(from decoder: any Decoder) throws {
            room = try decoder.container(keyedBy: Key.self).claim(String.self, forKey: .room)
        }
    }

    private enum Key: String, CodingKey {
        case iss, sub, jti, exp, nbf, grants
    }

    init(from decoder: any Decoder) throws {
        let payload = try decoder.container(keyedBy: Key.self)
        iss = payload.claim(String.self, forKey: .iss)
        sub = payload.claim(String.self, forKey: .sub)
        jti = payload.claim(String.self, forKey: .jti)
        exp = payload.claim(Double.self, forKey: .exp)
        nbf = payload.claim(Double.self, forKey: .nbf)
        grants = payload.claim(Grants.self, forKey: .grants)
    }
}
