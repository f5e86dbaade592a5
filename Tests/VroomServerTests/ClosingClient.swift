import Foundation
import HummingbirdWSClient
import Logging
import Synchronization

/// A signaling client that measures its closing handshake as an independent
/// client sees it (PROTOCOL.md section 3.6): it joins, waits for `close()`,
/// sends `leave` if asked, then a close frame, and keeps reading until the
/// server's close frame ends the stream. Unlike `SignalingClient` it never
/// stops reading early, so a server that does not answer the close shows
/// as a handshake that lasts the client's whole close timeout.
final class ClosingClient: Sendable {
    private struct State {
        var joined = false
        var closeSent: ContinuousClock.Instant?
        var closeAnswered: ContinuousClock.Instant?
        var connectionClosed: ContinuousClock.Instant?
        /// The server's close frame arrived (not just the end of TCP).
        var serverSentClose = false
        var failure: String?
    }

    /// Shared with the connection's task (a Mutex cannot be copied into it).
    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    private let shared = Shared()
    private let go: AsyncStream<Bool>.Continuation
    private let task: Task<Void, Never>
    /// As long as the client waits for the server's close frame, like the
    /// independent clients that found the stall (10 s).
    static let closeTimeout: Duration = .seconds(10)

    /// - Parameter publish: publish one audio track after `joined`, and
    ///   answer every `subscribeOffer`, as a conferencing client does.
    init(port: Int, token: String, room: String, publish: Bool = false) {
        let (stream, go) = AsyncStream.makeStream(of: Bool.self)
        self.go = go
        let url = "ws://127.0.0.1:\(port)/v1/signal?access_token=\(token)"
        var config = WebSocketClientConfiguration()
        config.maxFrameSize = 1 << 20
        config.closeTimeout = Self.closeTimeout
        let shared = self.shared
        let join = #"{"type":"join","id":"j","room":"\#(room)"}"#
        task = Task {
            do {
                let closeFrame = try await WebSocketClient.connect(url: url, configuration: config, logger: Logger(label: "test.closing")) {
                    inbound, outbound, _ in
                    try await outbound.write(.text(join))
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await leave in stream {
                                if leave { try await outbound.write(.text(#"{"type":"leave"}"#)) }
                                shared.state.withLock { $0.closeSent = .now }
                                try await outbound.close(.normalClosure, reason: nil)
                                return
                            }
                        }
                        // Read everything, `joined` included, until the
                        // server's close frame (or the connection) ends it.
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            guard case .text(let text) = message else { continue }
                            if text.contains(#""type":"joined""#) {
                                shared.state.withLock { $0.joined = true }
                                if publish { try await outbound.write(.text(Self.publishFrame)) }
                            } else if publish, text.contains(#""type":"subscribeOffer""#),
                                let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                                let sdp = object["sdp"] as? String
                            {
                                let answer: [String: Any] = ["type": "subscribeAnswer", "sdp": ServerProcessTests.SignalingEndToEndTests.answer(to: sdp)]
                                let data = try JSONSerialization.data(withJSONObject: answer)
                                try? await outbound.write(.text(String(decoding: data, as: UTF8.self)))
                            }
                        }
                        shared.state.withLock { $0.closeAnswered = .now }
                        try await group.waitForAll()
                    }
                }
                shared.state.withLock { $0.serverSentClose = closeFrame != nil }
            } catch {
                shared.state.withLock { $0.failure = "\(error)" }
            }
            shared.state.withLock {
                $0.connectionClosed = .now
                if $0.closeAnswered == nil { $0.closeAnswered = $0.connectionClosed }
            }
        }
    }

    static let publishFrame: String = {
        let publish: [String: Any] = [
            "type": "publish", "id": "p", "sdp": ServerProcessTests.ErrorCodesEndToEndTests.offer([("0", "audio", ServerProcessTests.ErrorCodesEndToEndTests.opus)]),
            "tracks": [["mid": "0", "name": "mic", "kind": "audio"]],
        ]
        return String(decoding: try! JSONSerialization.data(withJSONObject: publish), as: UTF8.self)
    }()

    deinit {
        go.finish()
    }

    var isJoined: Bool { shared.state.withLock { $0.joined } }
    var serverSentClose: Bool { shared.state.withLock { $0.serverSentClose } }
    var failure: String? { shared.state.withLock { $0.failure } }

    /// Sends `leave` (if asked) and the close frame; returns at once.
    func startClosing(leave: Bool) {
        go.yield(leave)
    }

    /// Waits until the connection is over; returns how long the closing
    /// handshake took from the close frame sent: to the server's close
    /// frame, and to the server closing the TCP connection (RFC 6455
    /// section 7.1.1: the server closes it first).
    func closingHandshake() async -> (answered: Duration, closed: Duration)? {
        await task.value
        return shared.state.withLock { state in
            guard let sent = state.closeSent, let answered = state.closeAnswered, let closed = state.connectionClosed
            else { return nil }
            return (answered - sent, closed - sent)
        }
    }
}
