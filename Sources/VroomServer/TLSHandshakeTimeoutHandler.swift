import NIOCore
import NIOTLS

/// Closes a TLS connection whose handshake has not completed within
/// `timeout` of accept, and reports each connection that ends before its
/// handshake completed: `timeout`, or `error` (not TLS, such as plain HTTP
/// sent to the HTTPS port, or a handshake the server refused).
///
/// NIOSSL has no handshake timeout of its own, and Hummingbird's idle
/// timeout sits above TLS and is off for our HTTP channel, so without this
/// a client that sends half a ClientHello and then nothing holds its socket
/// until the kernel gives up on it (hours). It sits right after the
/// `NIOSSLServerHandler`, which sends `TLSUserEvent.handshakeCompleted`
/// up the pipeline, then removes itself. `handshake` succeeds at that event
/// and fails when the connection ends before it.
final class TLSHandshakeTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    /// Why a connection ended before its handshake completed.
    enum Failure: String, CaseIterable {
        case timeout
        case error
    }

    struct HandshakeFailed: Error {
        var failure: Failure
    }

    private let timeout: TimeAmount
    private let onFailure: @Sendable (Failure) -> Void
    private let handshake: EventLoopPromise<Void>
    private var deadline: Scheduled<Void>?
    private var reported = false

    init(timeout: TimeAmount, handshake: EventLoopPromise<Void>, onFailure: @escaping @Sendable (Failure) -> Void) {
        self.timeout = timeout
        self.handshake = handshake
        self.onFailure = onFailure
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // Added while the accepted channel is being set up: the clock runs from accept.
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: timeout) {
            let (handler, context) = loopBound.value
            handler.report(.timeout)
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        // Removed with the pipeline before any outcome: never leave the promise open.
        report(.error)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event {
            deadline?.cancel()
            deadline = nil
            reported = true
            handshake.succeed()
            context.fireUserInboundEventTriggered(event)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        report(.error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // Closed by the client before the handshake completed.
        report(.error)
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    /// Once per connection.
    private func report(_ failure: Failure) {
        guard !reported else { return }
        reported = true
        onFailure(failure)
        handshake.fail(HandshakeFailed(failure: failure))
    }
}
