import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The server's request context: Hummingbird's basic WebSocket context plus
/// the connection's channel, so that `/v1/signal` can watch the client's
/// ping and pong control frames (``ControlFrameObserver``). With another
/// context the endpoint still works; only data frames then count as traffic.
public struct SignalingRequestContext: RequestContext, WebSocketRequestContext, ChannelProvidingContext {
    public var coreContext: CoreRequestContextStorage
    public let webSocket: WebSocketHandlerReference<Self>
    /// The TCP connection (after the upgrade: the WebSocket pipeline). Weak:
    /// the channel's own pipeline keeps the request's context alive, and a
    /// strong reference back kept every closed connection's channel (its
    /// buffers, about 5 KB) alive for good (heaptrack, 3,000 joins).
    public weak let channel: (any Channel)?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
    }
}

/// A request context that knows its connection's channel.
public protocol ChannelProvidingContext {
    var channel: (any Channel)? { get }
}
