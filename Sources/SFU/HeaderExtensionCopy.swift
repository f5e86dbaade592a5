/// A header extension carried from a publisher's packets to a subscriber's:
/// the value found under the publisher connection's ID is written under the
/// subscriber connection's ID (IDs are per connection, PROTOCOL.md section
/// 5). For audio-level and abs-send-time; mid and transport-cc are written
/// by the router itself with the subscriber's own values.
public struct HeaderExtensionCopy: Hashable, Sendable {
    public var publisherID: UInt8
    public var subscriberID: UInt8

    public init(publisherID: UInt8, subscriberID: UInt8) {
        self.publisherID = publisherID
        self.subscriberID = subscriberID
    }
}
