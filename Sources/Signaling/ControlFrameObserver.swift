import NIOCore
import NIOWebSocket

/// Sees the client's WebSocket ping and pong control frames, which count as
/// traffic for the 15 s silence rule (PROTOCOL.md sections 1 and 3.6).
///
/// Hummingbird's `WebSocketInboundStream` answers pings and consumes pongs
/// itself and yields only data frames (swift-websocket 1.6.2,
/// `WSCore/WebSocketInboundStream.swift`, `next()`: `case .ping` /
/// `case .pong`), so the session never sees them. This handler sits in the
/// upgraded channel's pipeline right after the frame decoder, reports each
/// control frame and passes every frame on unchanged.
final class ControlFrameObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    private let seen: @Sendable () -> Void

    init(seen: @escaping @Sendable () -> Void) {
        self.seen = seen
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let opcode = unwrapInboundIn(data).opcode
        if opcode == .ping || opcode == .pong { seen() }
        context.fireChannelRead(data)
    }

    /// Adds an observer after `channel`'s WebSocket frame decoder. Frames
    /// that arrived before this runs are not reported (harmless: the
    /// session's silence clock starts when it is created).
    static func install(on channel: any Channel, seen: @escaping @Sendable () -> Void) async throws {
        try await channel.eventLoop.submit {
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
            try operations.addHandler(ControlFrameObserver(seen: seen), position: .after(decoder))
        }.get()
    }
}
