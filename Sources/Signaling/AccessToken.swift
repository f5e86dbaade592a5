import Foundation

/// A verified access token (PROTOCOL.md section 2): who may join, where, until when.
public struct AccessToken: Sendable, Equatable {
    /// The API key that signed it (`kid` / `iss`).
    public var apiKey: String
    /// `grants.identity`, as given. Rooms validates it (53200-53202).
    public var identity: String
    /// `grants.video.room`: a room's unique name or SID; `nil` allows any room.
    public var roomGrant: String?
    /// `sub`: free text, e.g. an account.
    public var subject: String?
    /// `jti`: may repeat (reconnects reuse tokens).
    public var tokenID: String?
    /// `nbf`, when present.
    public var notBefore: Date?
    /// `exp`.
    public var expiresAt: Date

    public init(
        apiKey: String, identity: String, roomGrant: String?, subject: String?, tokenID: String?, notBefore: Date?,
        expiresAt: Date
    ) {
        self.apiKey = apiKey
        self.identity = identity
        self.roomGrant = roomGrant
        self.subject = subject
        self.tokenID = tokenID
        self.notBefore = notBefore
        self.expiresAt = expiresAt
    }

    /// Whether the room grant allows the room with this unique name and, if
    /// it exists yet, this SID. The grant may name either.
    public func allowsRoom(name: String, sid: String? = nil) -> Bool {
        guard let roomGrant else { return true }
        return roomGrant == name || (sid != nil && roomGrant == sid)
    }

    /// Throws 20106 unless the room grant allows the room (see ``allowsRoom(name:sid:)``).
    public func checkRoom(name: String, sid: String? = nil) throws(AccessTokenError) {
        guard allowsRoom(name: name, sid: sid) else {
            throw AccessTokenError(
                .grantsInvalid, "the token's room grant '\(roomGrant ?? "")' does not allow room '\(name)'"
                    + (sid.map { " (\($0))" } ?? ""))
        }
    }
}
