import NIOCore
import NIOPosix
import Packets
import WebRTC

#if canImport(Glibc)
import Glibc
#endif

/// One of the engine's PeerConnections on the wire: a NIO UDP socket on
/// the engine's event loop, the `PeerTransport` (controlling ICE, DTLS
/// client, SRTP) it feeds, and the timer that drives the transport.
/// Decrypted RTP/RTCP goes to `onRTP`/`onRTCP` with the scratch buffer.
///
/// ICE-TCP (RFC 6544, active side): when the transport checks the
/// server's passive TCP candidate, packets to it go as RFC 4571 frames over
/// one TCP connection, opened on the first write and again after it drops.
/// With the `.automatic` policy a first connection starts on UDP and moves
/// to TCP when no UDP check was answered within `tcpFallbackDelay`.
///
/// `@unchecked Sendable`: confined to `eventLoop` (every method asserts it;
/// NIO calls the socket handler on that loop), so its state is never shared.
final class EnginePeerConnection: @unchecked Sendable {
    let role: MediaConnectionRole
    let eventLoop: any EventLoop
    private let certificate: DTLSCertificate
    private let configuration: MediaEngineConfiguration
    private var channel: (any Channel)?
    private var unsent: [(datagram: [UInt8], destination: STUNAddress)] = []
    private var isClosed = false
    private(set) var transport: PeerTransport?
    private(set) var state: MediaConnectionState = .new
    private(set) var droppedDatagrams = 0
    private var timer: Scheduled<Void>?
    private var timerDeadline: MediaTime?
    /// Receive and send scratch: a 1500-byte datagram plus the SRTP trailer
    /// room. Sound: owned by this object (freed in deinit), only touched on
    /// the event loop, every write bounds-checked against `count` first.
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
    private let sendScratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
    private var addresses: [STUNAddress: SocketAddress] = [:]
    /// The server's candidates this connection may use.
    private var paths = MediaPaths()
    /// UDP went unanswered for this server: new transports check over TCP.
    private var prefersTCP = false
    /// The transport checks and sends over the ICE-TCP connection (its
    /// target is `paths.tcp`), else over the UDP socket. The address alone
    /// does not say which: by default the server's UDP and TCP candidates
    /// share one (ICE-TCP on the media ports).
    private var overTCP = false
    /// The one address the current transport checks (`paths.tcp` or
    /// `paths.udp`, as `overTCP` says).
    private var transportTarget: STUNAddress?
    private var fallback: Scheduled<Void>?
    /// The ICE-TCP connection to `paths.tcp`, while open.
    private var stream: (any Channel)?
    /// When `stream` connected: one that drops within a second holds the
    /// next attempt back 250 ms (a server that accepts and closes at once
    /// is not hammered at round-trip speed).
    private var streamOpenedAt = MediaTime(nanoseconds: 0)
    /// The candidate a TCP connect is under way to (a stale one, to a
    /// server since left, does not hold up a connect to the current one).
    private var streamConnecting: STUNAddress?
    private var streamUnsent: [[UInt8]] = []
    /// No new TCP connection before this (1 s after a failed one).
    private var nextStreamAttempt = MediaTime(nanoseconds: 0)
    /// Opens the connection at `nextStreamAttempt` when frames wait for it,
    /// rather than at the next write (for a subscriber, the next check's
    /// retransmission, up to a second later).
    private var streamRetry: Scheduled<Void>?
    /// Frames dropped because the TCP connection's buffer was full (a
    /// congested link: media is dropped, never queued without bound).
    private(set) var droppedFrames = 0

    var onRTP: (UnsafeMutableRawBufferPointer, Int) -> Void = { _, _ in }
    var onRTCP: (UnsafeMutableRawBufferPointer, Int) -> Void = { _, _ in }
    var onStateChange: (MediaConnectionState) -> Void = { _ in }

    init(role: MediaConnectionRole, eventLoop: any EventLoop, certificate: DTLSCertificate,
         configuration: MediaEngineConfiguration) {
        self.role = role
        self.eventLoop = eventLoop
        self.certificate = certificate
        self.configuration = configuration
    }

    deinit {
        scratch.deallocate()
        sendScratch.deallocate()
    }

    var isConnected: Bool { transport?.isConnected ?? false }

    /// The socket's port once bound (tests send it stray datagrams).
    var localPort: Int? { channel?.localAddress?.port }

    /// The UDP socket's channel (tests close it as NIO does on a send error).
    var socketChannel: (any Channel)? { channel }

    /// No new socket before this (at most one a second).
    private var nextRebind = MediaTime(nanoseconds: 0)

    /// Binds the socket (asynchronously: datagrams queued until it is bound).
    func bind() {
        let handler = DatagramHandler(connection: self)
        DatagramBootstrap(group: eventLoop)
            .channelOption(.socketOption(.so_rcvbuf), value: 1 << 20)
            .channelOption(.maxMessagesPerRead, value: 16)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
            .bind(host: configuration.bindHost, port: 0)
            .whenComplete { [self] result in
                switch result {
                case .success(let channel):
                    if isClosed {
                        channel.close(promise: nil)
                        return
                    }
                    self.channel = channel
                    let queued = unsent
                    unsent = []
                    for (datagram, destination) in queued {
                        datagram.withUnsafeBytes { writeDatagram($0, to: destination) }
                    }
                case .failure(let error):
                    guard !isClosed else { return }
                    fail(code: 53405, message: "cannot bind a UDP socket on \(configuration.bindHost): \(error)")
                }
            }
    }

    /// NIO closes a datagram channel on any send error but EMSGSIZE and
    /// EHOSTUNREACH: EPERM from a local firewall dropping one packet,
    /// ENETUNREACH while the network changes. The connection is not lost
    /// for that: bind a new socket (at most once a second) and send a
    /// nominating check from it at once, so the server moves its path to
    /// the new port (the check's USERNAME names this connection).
    fileprivate func socketClosed(_ closed: any Channel) {
        guard !isClosed, channel === closed else { return }
        channel = nil
        let now = EngineClock.now()
        let delay = nextRebind > now ? Int64(nextRebind.nanoseconds(since: now)) : 0
        nextRebind = now.adding(milliseconds: 1000)
        eventLoop.scheduleTask(in: .nanoseconds(delay)) { [self] in
            guard !isClosed, channel == nil else { return }
            bind()
            if let transport, transport.failure == nil, transport.selectedAddress != nil, !overTCP {
                transport.restartICE(local: transport.localICE, remote: transport.remote)
                pump()
            }
        }
    }

    /// Starts (or, with a new `localICE`, restarts) ICE and DTLS toward
    /// `paths` (UDP first, as the policy allows). A remote DTLS
    /// fingerprint other than the transport's is
    /// another server (the room moved to another node, PROTOCOL.md 8),
    /// which knows nothing of this transport: a new one starts, with a new
    /// DTLS handshake.
    func start(localICE: ICECredentials, remote: RemoteTransportParameters, paths: MediaPaths) throws(MediaEngineError) {
        eventLoop.preconditionInEventLoop()
        if let transport, !transport.remote.isSameServer(as: remote) {
            transport.close()
            // Its close_notify tells the old server this connection is done
            // (over the old paths: `paths` changes below).
            while let (datagram, destination) = transport.pollTransmit() { write(datagram, to: destination.address) }
            self.transport = nil
            // Another node: its network path may differ; UDP first again.
            prefersTCP = false
            // Nothing queued for the old server goes to the new one, even
            // at the same address (one address in front of several nodes).
            stream?.close(promise: nil)
            stream = nil
            streamUnsent = []
        } else if let transport, transportTarget != (overTCP ? paths.tcp : paths.udp) {
            // The same server with the address this transport checks gone
            // from its candidates (another media port): a transport checks
            // one address, so a new one starts. Its close_notify goes over
            // the old paths, which change below.
            transport.close()
            while let (datagram, destination) = transport.pollTransmit() { write(datagram, to: destination.address) }
            self.transport = nil
        }
        if paths.tcp != self.paths.tcp {
            stream?.close(promise: nil)
            stream = nil
            streamUnsent = []
        }
        self.paths = paths
        if let transport, transport.failure == nil {
            if transport.localICE != localICE || transport.remote.ice != remote.ice {
                transport.restartICE(local: localICE, remote: remote)
                if case .failed = state {} else if !transport.isConnected { setState(.connecting) }
                recheckAfterRestart(localICE: localICE)
            }
            pump()
            return
        }
        // Consent lost, DTLS intact: the server keeps its DTLS session, so
        // restart ICE on this transport rather than handshake anew.
        if let transport, transport.localICE != localICE,
            transport.recoverICE(local: localICE, remote: remote, now: EngineClock.now())
        {
            setState(.connecting)
            recheckAfterRestart(localICE: localICE)
            pump()
            return
        }
        transport?.close()
        let tcp = prefersTCP ? paths.tcp != nil : paths.udp == nil
        guard let target = tcp ? paths.tcp : paths.udp else {
            throw MediaEngineError.remoteDescription("server description has no candidate to check")
        }
        try makeTransport(localICE: localICE, remote: remote, target: target, overTCP: tcp)
        if !tcp, paths.tcp != nil, configuration.transportPolicy == .automatic {
            scheduleFallback()
        }
        setState(.connecting)
        pump()
    }

    private func makeTransport(
        localICE: ICECredentials, remote: RemoteTransportParameters, target: STUNAddress, overTCP: Bool
    ) throws(MediaEngineError) {
        do {
            transport = try PeerTransport(
                certificate: certificate, localICE: localICE, remote: remote, dtlsRole: .client,
                iceMode: .controlling(remote: target), configuration: configuration.transportConfiguration,
                now: EngineClock.now())
        } catch {
            throw MediaEngineError(code: error.code, message: error.message)
        }
        self.overTCP = overTCP
        transportTarget = target
        // A pending fallback belonged to the transport this one replaces.
        fallback?.cancel()
        fallback = nil
    }

    /// `.automatic`: if no UDP check is answered in time, the network
    /// drops UDP; a new transport checks the TCP candidate instead. No
    /// DTLS has started (it waits for a nominated pair), so nothing is lost.
    private func scheduleFallback() {
        fallback?.cancel()
        fallback = eventLoop.scheduleTask(in: TimeAmount(configuration.tcpFallbackDelay)) { [self] in
            fallback = nil
            guard !isClosed, !overTCP, let transport, transport.selectedAddress == nil, transport.failure == nil,
                let tcp = paths.tcp
            else { return }
            transport.close()
            do throws(MediaEngineError) {
                try makeTransport(localICE: transport.localICE, remote: transport.remote, target: tcp, overTCP: true)
            } catch {
                fail(code: error.code, message: error.message)
                return
            }
            prefersTCP = true
            pump()
        }
    }

    /// A restart's first check goes out at once; on the subscriber
    /// connection it may reach the server before our answer does, fail,
    /// and leave the next one to the 5 s consent interval. Restarting the
    /// agent again with the same credentials sends a check now: at 250 ms
    /// and 1 s, while these credentials are current.
    private func recheckAfterRestart(localICE: ICECredentials) {
        for delay in [250, 1000] {
            eventLoop.scheduleTask(in: .milliseconds(Int64(delay))) { [self] in
                guard !isClosed, let transport, transport.failure == nil, transport.localICE == localICE else { return }
                transport.restartICE(local: localICE, remote: transport.remote)
                pump()
            }
        }
    }

    // MARK: Input

    fileprivate func receive(_ envelope: AddressedEnvelope<ByteBuffer>) {
        guard let source = Self.stunAddress(envelope.remoteAddress) else {
            droppedDatagrams += 1
            return
        }
        receive(envelope.data, from: source)
    }

    /// A datagram, or a frame from the ICE-TCP connection (from `paths.tcp`).
    fileprivate func receive(_ data: ByteBuffer, from source: STUNAddress) {
        guard let transport, !isClosed else { return }
        let length = data.readableBytes
        guard length > 0, length <= 2048 else {
            droppedDatagrams += 1
            return
        }
        data.withUnsafeReadableBytes { scratch.copyMemory(from: $0) }
        switch transport.receive(scratch, length: length, from: source, now: EngineClock.now()) {
        case .rtp(let plain): onRTP(scratch, plain)
        case .rtcp(let plain): onRTCP(scratch, plain)
        case .handled: break
        case .dropped: droppedDatagrams += 1
        }
        pump()
    }

    // MARK: Output

    /// Protects `packet` (plaintext RTP) and sends it; false when not connected.
    @discardableResult
    func sendRTP(_ packet: UnsafeRawBufferPointer) -> Bool {
        send(packet, rtcp: false)
    }

    @discardableResult
    func sendRTCP(_ packet: UnsafeRawBufferPointer) -> Bool {
        send(packet, rtcp: true)
    }

    private func send(_ packet: UnsafeRawBufferPointer, rtcp: Bool) -> Bool {
        guard let transport, transport.isConnected, let destination = transport.selectedAddress,
            packet.count + SRTPContext.maximumTrailerLength <= sendScratch.count
        else { return false }
        sendScratch.copyMemory(from: packet)
        let protected = rtcp
            ? transport.protectRTCP(sendScratch, length: packet.count)
            : transport.protectRTP(sendScratch, length: packet.count)
        guard let protected else { return false }
        write(UnsafeRawBufferPointer(rebasing: sendScratch[0..<protected]), to: destination)
        return true
    }

    /// Sends what the transport queued, reports its events, re-arms the timer.
    func pump() {
        guard let transport else { return }
        while let (datagram, destination) = transport.pollTransmit() {
            datagram.withUnsafeBytes { write($0, to: destination.address) }
        }
        while let event = transport.pollEvent() {
            switch event {
            case .connected: setState(.connected)
            case .failed(let error): setState(.failed(code: error.code, message: error.message))
            case .closedByPeer: setState(.failed(code: 53405, message: "the server closed DTLS"))
            case .selected:
                // After a recovered ICE failure DTLS is already up: a
                // nominated pair again means connected again.
                if transport.isConnected { setState(.connected) }
            case .addressValidated: break
            }
        }
        rearm()
    }

    private func write(_ bytes: UnsafeRawBufferPointer, to destination: STUNAddress) {
        guard !isClosed else { return }
        if overTCP {
            writeFrame(bytes)
        } else {
            writeDatagram(bytes, to: destination)
        }
    }

    private func writeDatagram(_ bytes: UnsafeRawBufferPointer, to destination: STUNAddress) {
        guard let channel else {
            // Until the socket is bound (or bound again after NIO closed
            // it): a few control packets, never a growing pile of media.
            if unsent.count < 64 { unsent.append((Array(bytes), destination)) }
            return
        }
        guard let address = socketAddress(destination) else { return }
        let buffer = channel.allocator.buffer(bytes: bytes)
        channel.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: buffer), promise: nil)
    }

    private func write(_ bytes: [UInt8], to destination: STUNAddress) {
        bytes.withUnsafeBytes { write($0, to: destination) }
    }

    // MARK: ICE-TCP

    /// Sends `bytes` as one RFC 4571 frame; opens the connection first if
    /// there is none (the frames wait, at most 64 of them).
    private func writeFrame(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0, bytes.count <= RFC4571Framing.maximumPacketLength else { return }
        guard let stream else {
            if streamUnsent.count < 64 { streamUnsent.append(Array(bytes)) }
            openStream()
            return
        }
        guard stream.isWritable else {
            droppedFrames += 1
            return
        }
        var buffer = stream.allocator.buffer(capacity: RFC4571Framing.headerLength + bytes.count)
        buffer.writeInteger(UInt16(bytes.count))
        buffer.writeBytes(bytes)
        stream.writeAndFlush(buffer, promise: nil)
    }

    private func openStream() {
        let now = EngineClock.now()
        guard let tcp = paths.tcp, streamConnecting != tcp, let address = socketAddress(tcp) else { return }
        guard now >= nextStreamAttempt else {
            if streamRetry == nil {
                streamRetry = eventLoop.scheduleTask(in: .nanoseconds(Int64(nextStreamAttempt.nanoseconds(since: now)))) { [self] in
                    streamRetry = nil
                    if !isClosed, overTCP, stream == nil, !streamUnsent.isEmpty { openStream() }
                }
            }
            return
        }
        streamConnecting = tcp
        let handler = StreamHandler(connection: self, peer: tcp)
        ClientBootstrap(group: eventLoop)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            // A congested link holds at most this much media; then frames drop.
            .channelOption(.writeBufferWaterMark, value: .init(low: 32 << 10, high: 128 << 10))
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(ByteToMessageHandler(RFC4571FrameDecoder()), handler)
                }
            }
            .connect(to: address)
            .whenComplete { [self] result in
                if streamConnecting == tcp { streamConnecting = nil }
                guard !isClosed, paths.tcp == tcp else {
                    // A connect to a server this connection has left: nothing
                    // of it stays; frames queued for the current one go now.
                    if case .success(let channel) = result { channel.close(promise: nil) }
                    if !isClosed, overTCP, stream == nil, !streamUnsent.isEmpty { openStream() }
                    return
                }
                switch result {
                case .success(let channel):
                    stream = channel
                    streamOpenedAt = EngineClock.now()
                    let queued = streamUnsent
                    streamUnsent = []
                    for frame in queued { frame.withUnsafeBytes { writeFrame($0) } }
                case .failure(let error):
                    streamUnsent = []
                    nextStreamAttempt = EngineClock.now().adding(milliseconds: 1000)
                    if configuration.transportPolicy == .tcp, !isConnected {
                        fail(code: 53405, message: "cannot connect to the server's ICE-TCP candidate \(tcp): \(error)")
                    }
                }
            }
    }

    /// The ICE-TCP connection dropped. While media goes over it, open
    /// another at once with a nominating check first, so the server moves
    /// its path to the new connection now rather than at the next consent
    /// check, seconds later (as `socketClosed` does for UDP). Otherwise the
    /// next write opens it.
    fileprivate func streamClosed(_ channel: any Channel) {
        guard stream === channel else { return }
        stream = nil
        let now = EngineClock.now()
        if now.nanoseconds(since: streamOpenedAt) < 1_000_000_000 { nextStreamAttempt = now.adding(milliseconds: 250) }
        if !isClosed, overTCP, let transport, transport.failure == nil, transport.selectedAddress != nil {
            transport.restartICE(local: transport.localICE, remote: transport.remote)
            pump()
        }
    }

    // MARK: Timer

    private func rearm() {
        guard !isClosed, let due = transport?.nextTimeout else {
            timer?.cancel()
            timer = nil
            timerDeadline = nil
            return
        }
        if let timerDeadline, timerDeadline == due, timer != nil { return }
        timer?.cancel()
        let now = EngineClock.now()
        let delay = due > now ? Int64(due.nanoseconds(since: now)) : 0
        timerDeadline = due
        timer = eventLoop.scheduleTask(in: .nanoseconds(delay)) { [self] in
            timer = nil
            timerDeadline = nil
            guard !isClosed, let transport else { return }
            transport.handleTimeout(now: EngineClock.now())
            pump()
        }
    }

    // MARK: State

    private func setState(_ new: MediaConnectionState) {
        guard new != state else { return }
        state = new
        onStateChange(new)
    }

    private func fail(code: Int, message: String) {
        setState(.failed(code: code, message: message))
    }

    func close() {
        guard !isClosed else { return }
        if let transport {
            transport.close()
            while let (datagram, destination) = transport.pollTransmit() { write(datagram, to: destination.address) }
        }
        isClosed = true
        timer?.cancel()
        timer = nil
        fallback?.cancel()
        fallback = nil
        streamRetry?.cancel()
        streamRetry = nil
        channel?.close(promise: nil)
        channel = nil
        stream?.close(promise: nil)
        stream = nil
    }

    // MARK: Addresses

    private func socketAddress(_ address: STUNAddress) -> SocketAddress? {
        if let cached = addresses[address] { return cached }
        let socketAddress: SocketAddress
        if let ipv4 = address.ipv4 {
            var raw = sockaddr_in()
            raw.sin_family = sa_family_t(AF_INET)
            raw.sin_port = address.port.bigEndian
            raw.sin_addr.s_addr = ipv4.bigEndian
            socketAddress = SocketAddress(raw, host: "")
        } else {
            var raw = sockaddr_in6()
            raw.sin6_family = sa_family_t(AF_INET6)
            raw.sin6_port = address.port.bigEndian
            address.withUnsafeAddressBytes { bytes in
                withUnsafeMutableBytes(of: &raw.sin6_addr) { $0.copyMemory(from: bytes) }
            }
            socketAddress = SocketAddress(raw, host: "")
        }
        if addresses.count > 16 { addresses.removeAll() }
        addresses[address] = socketAddress
        return socketAddress
    }

    static func stunAddress(_ address: SocketAddress) -> STUNAddress? {
        switch address {
        case .v4(let v4):
            return STUNAddress(ipv4: UInt32(bigEndian: v4.address.sin_addr.s_addr), port: UInt16(bigEndian: v4.address.sin_port))
        case .v6(let v6):
            var raw = v6.address.sin6_addr
            let port = UInt16(bigEndian: v6.address.sin6_port)
            return withUnsafeBytes(of: &raw) { bytes in
                // An IPv4 peer of a dual-stack socket (::ffff:a.b.c.d) is IPv4.
                if bytes.prefix(10).allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                    return STUNAddress(addressBytes: UnsafeRawBufferPointer(rebasing: bytes[12...]), port: port)
                }
                return STUNAddress(addressBytes: bytes, port: port)
            }
        default:
            return nil
        }
    }
}

/// Hands the socket's datagrams to its connection, on the event loop.
private final class DatagramHandler: ChannelInboundHandler, @unchecked Sendable {
    // @unchecked Sendable: built before the channel exists and then only
    // used by NIO on the connection's event loop.
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    private weak var connection: EnginePeerConnection?

    init(connection: EnginePeerConnection) {
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        connection?.receive(unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection?.socketClosed(context.channel)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP port unreachable and the like: UDP goes on. (A send error NIO
        // cannot recover from closes the channel: `socketClosed`.)
    }
}

/// Hands the ICE-TCP connection's frames to its connection, on the event loop.
private final class StreamHandler: ChannelInboundHandler, @unchecked Sendable {
    // @unchecked Sendable: built before the channel exists and then only
    // used by NIO on the connection's event loop.
    typealias InboundIn = ByteBuffer
    private weak var connection: EnginePeerConnection?
    private let peer: STUNAddress

    init(connection: EnginePeerConnection, peer: STUNAddress) {
        self.connection = connection
        self.peer = peer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        connection?.receive(unwrapInboundIn(data), from: peer)
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection?.streamClosed(context.channel)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A bad frame length: the stream is out of step and cannot recover.
        context.close(promise: nil)
    }
}

/// Cuts a TCP byte stream into RFC 4571 frames.
struct RFC4571FrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    struct BadLength: Error {
        var length: Int
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        switch buffer.withUnsafeReadableBytes({ RFC4571Framing.next(in: $0) }) {
        case .incomplete:
            return .needMoreData
        case .invalidLength(let length):
            throw BadLength(length: length)
        case .packet(let offset, let length):
            buffer.moveReaderIndex(forwardBy: offset)
            context.fireChannelRead(wrapInboundOut(buffer.readSlice(length: length)!))
            return .continue
        }
    }
}
