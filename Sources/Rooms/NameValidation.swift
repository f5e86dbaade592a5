/// Room names, identities and track names share one shape of rules
/// (PROTOCOL.md sections 2, 3.2, 4): not empty, at most 128 Unicode scalars,
/// no control characters. Names may hold `/`, `?`, `#` and any other
/// printable character (REST path segments are percent-decoded).
public enum NameValidation {
    static let maxScalars = 128

    enum Problem {
        case empty
        case tooLong
        case invalidCharacters
    }

    /// The first problem of `name`, or nil when it is acceptable.
    /// `rejectBlank` also treats an all-whitespace name as empty.
    static func problem(of name: String, rejectBlank: Bool) -> Problem? {
        if name.isEmpty { return .empty }
        if rejectBlank, name.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) { return .empty }
        if name.unicodeScalars.count > maxScalars { return .tooLong }
        // Cc: C0 (U+0000-001F), DEL and C1 (U+007F-009F).
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return .invalidCharacters
        }
        return nil
    }

    /// 53100, 53101 or 53102 for a bad room name. Public so a cluster node
    /// refuses one before it places the room anywhere.
    public static func validateRoomName(_ name: String) throws(RoomError) {
        switch problem(of: name, rejectBlank: true) {
        case nil: return
        case .empty: throw .roomNameInvalid
        case .tooLong: throw .roomNameTooLong
        case .invalidCharacters: throw .roomNameCharsInvalid
        }
    }

    static func validateIdentity(_ identity: String) throws(RoomError) {
        switch problem(of: identity, rejectBlank: false) {
        case nil: return
        case .empty: throw .participantIdentityInvalid
        case .tooLong: throw .participantIdentityTooLong
        case .invalidCharacters: throw .participantIdentityCharsInvalid
        }
    }

    static func validateTrackName(_ name: String) throws(RoomError) {
        switch problem(of: name, rejectBlank: true) {
        case nil: return
        case .empty, .invalidCharacters: throw .trackNameInvalid
        case .tooLong: throw .trackNameTooLong
        }
    }
}
