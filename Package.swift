// swift-tools-version: 6.1
//
// Vroom: room server + SFU. Module layout and dependency direction are in
// ../shared/DESIGN.md ("Layers"): dependencies point down only.
//
//   VroomServer -> AdminAPI, Signaling -> Node -> Rooms, MediaIO, Persistence
//   MediaIO -> SFU, WebRTC;  SFU -> Packets;  WebRTC -> Packets, SDP, COpenSSL
//   LibSRTPReference -> CSRTP (libsrtp2, for tests and benchmarks only: no product links it)
//   Persistence -> Rooms
//   VroomClient -> WebRTC, SDP, Packets, Codecs -> CVPX, COpus
//   vroom-loadtest (loadtest/) -> VroomClient, Codecs, LoadTestCore, AccessTokens
//   vroom-join (one SDK participant from a shell) -> VroomClient
//   Signaling, VroomServer, vroom-loadtest -> AccessTokens -> JWTKit (minting tokens)
import PackageDescription

/// The packet path's modules (Packets, WebRTC, SFU, MediaIO) check exclusivity
/// statically only in release builds: each forwarded copy made 16 calls to
/// swift_beginAccess (and as many to swift_endAccess), measured with uprobes
/// in the side-by-side bench (docs/README.md, issue 16, session 37). Debug
/// builds, which every test runs, keep the dynamic checks, so a conflicting
/// access still traps there.
let packetPath: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "Vroom",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "vroom-server", targets: ["VroomServer"]),
        .executable(name: "vroom-impair", targets: ["VroomImpair"]),
        .executable(name: "vroom-loadtest", targets: ["VroomLoadTest"]),
        .executable(name: "vroom-join", targets: ["VroomJoin"]),
        .library(name: "VroomClient", targets: ["VroomClient"]),
        .library(name: "Packets", targets: ["Packets"]),
        .library(name: "SDP", targets: ["SDP"]),
        .library(name: "Codecs", targets: ["Codecs"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        // Layered server configuration: flags, VROOM_* environment, JSON file (JSON is a default trait).
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        // Malloc counts per packet come from the interposer trait (DESIGN.md, "Dependencies").
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // System libraries (Debian -dev packages, found through pkg-config).
        .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CVPX", pkgConfig: "vpx", providers: [.apt(["libvpx-dev"])]),
        .systemLibrary(name: "COpus", pkgConfig: "opus", providers: [.apt(["libopus-dev"])]),

        // Sans-I/O cores, bottom up.
        .target(name: "Packets", dependencies: ["COpenSSL"], swiftSettings: packetPath),
        // recvmmsg/sendmmsg need _GNU_SOURCE, which a system-library shim cannot
        // define without a clang module conflict (C-LIBRARIES.md): a plain C target.
        .target(name: "CVroomUDP"),
        .target(name: "SDP"),
        .target(name: "WebRTC", dependencies: ["Packets", "SDP", "COpenSSL"], swiftSettings: packetPath),
        .target(name: "SFU", dependencies: ["Packets"], swiftSettings: packetPath),
        .target(name: "Rooms"),
        // Minting access tokens (PROTOCOL.md section 2), for the server and the load tester alike.
        .target(name: "AccessTokens", dependencies: [.product(name: "JWTKit", package: "jwt-kit")]),

        // I/O and control plane.
        .target(name: "MediaIO", dependencies: [
            "SFU", "WebRTC", "Packets", "CVroomUDP",
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: packetPath),
        // This node's rooms and their one owner: RoomHost, the media plane's
        // control face in SIDs (RoomMedia), room placement.
        .target(name: "Node", dependencies: ["Rooms", "MediaIO", "Persistence"]),
        .target(name: "Signaling", dependencies: [
            "Node", "Rooms", "AccessTokens",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "Persistence", dependencies: [
            "Rooms",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "AdminAPI", dependencies: [
            "Node", "Rooms", "Persistence",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
        ], resources: [
            // The demo page's HTML, JavaScript and CSS, served at GET / (DemoPage.swift).
            .copy("WebPages"),
        ]),

        // Media codecs and the client side.
        .target(name: "Codecs", dependencies: ["CVPX", "COpus"]),
        .target(name: "VroomClient", dependencies: [
            "WebRTC", "SDP", "Packets", "Codecs",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
            // ConnectOptions.tlsConfiguration: wss:// to a server with a private CA.
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "VroomTesting", dependencies: ["Packets", "Codecs", "CVroomUDP"]),
        // libsrtp2, the reference WebRTC's own SRTP (OpenSSL EVP) is checked and
        // measured against: linked by test and benchmark targets only.
        .target(name: "LibSRTPReference", dependencies: ["CSRTP"]),
        // A WebRTC client in miniature (ICE, DTLS, SRTP on a real socket) for the media tests.
        // Also the media worker's forwarding path driven on one thread
        // (ForwardingPath), for SFUBenchmarks and its test.
        .target(name: "VroomTestPeer", dependencies: [
            "MediaIO", "SFU", "WebRTC", "Packets", "CVroomUDP", .product(name: "Logging", package: "swift-log"),
        ]),

        .executableTarget(name: "VroomServer", dependencies: [
            "AdminAPI", "Signaling", "Node", "MediaIO", "Rooms", "Persistence", "AccessTokens",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Configuration", package: "swift-configuration"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            .product(name: "Logging", package: "swift-log"),
            // HTTPS and WSS on the HTTP port, certificates reread on SIGHUP (TLSFrontEnd).
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOTLS", package: "swift-nio"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        ]),

        // The seeded UDP impairment relay as a command, for interop tests
        // driven by other languages (the kernel has no netem).
        .executableTarget(name: "VroomImpair", dependencies: [
            "VroomTesting",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // The load tester's pure parts (metrics text, scenarios, flags, report
        // math), unit-tested without a server. Access tokens come from
        // AccessTokens, the server's own minting code.
        .target(
            name: "LoadTestCore",
            dependencies: [
                "Codecs",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            path: "loadtest/Sources/LoadTestCore"
        ),
        // One VroomClient participant from a shell: the SDK's smallest whole
        // example, and the SDK client of the interop scenario meet.
        .executableTarget(
            name: "VroomJoin",
            dependencies: [
                "VroomClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The load tester: many VroomClient participants against one server.
        .executableTarget(
            name: "VroomLoadTest",
            dependencies: [
                "VroomClient", "Codecs", "LoadTestCore", "AccessTokens",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "loadtest/Sources/VroomLoadTest"
        ),

        .executableTarget(
            name: "PacketBenchmarks",
            dependencies: ["Packets", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/PacketBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),

        // Join/leave churn against a release server (scripts/churn.sh): RSS
        // and time per cycle must stay flat (issue 11, item 4).
        .executableTarget(
            name: "ChurnBenchmark",
            dependencies: [
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/ChurnBenchmark"
        ),

        .executableTarget(
            name: "SFUBenchmarks",
            dependencies: [
                "SFU", "WebRTC", "Packets", "LibSRTPReference", "VroomTestPeer",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/SFUBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),

        // LibSRTPReference: our SRTP against libsrtp2, both ways (SRTPInteropTests).
        .testTarget(name: "WebRTCTests", dependencies: ["WebRTC", "SDP", "Packets", "VroomTesting", "LibSRTPReference"], resources: [.copy("Fixtures")]),
        // Fixtures: the bandwidth estimator's recorded curves, read and rewritten
        // in the source tree (BandwidthEstimatorFixtureTests), so not resources.
        .testTarget(name: "SFUTests", dependencies: ["SFU", "WebRTC", "Packets", "VroomTesting"], exclude: ["Fixtures"]),
        .testTarget(name: "MediaIOTests", dependencies: ["MediaIO", "Node", "WebRTC", "SFU", "Packets", "SDP", "Rooms", "CVroomUDP", "VroomTesting", "VroomTestPeer"]),
        .testTarget(name: "PacketsTests", dependencies: ["Packets", "VroomTesting"]),
        .testTarget(name: "SDPTests", dependencies: ["SDP"], resources: [.copy("Fixtures")]),
        .testTarget(name: "SystemLibrariesTests", dependencies: ["CSRTP", "COpenSSL", "CVPX", "COpus", "LibSRTPReference"]),
        .testTarget(name: "VroomServerTests", dependencies: [
            "MediaIO", "Signaling", "AccessTokens", "VroomTesting", "VroomTestPeer", "LoadTestCore",
            .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
            // HMAC-SHA1, to check the TURN credentials in `joined` (TURNEndToEndTests).
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "CodecsTests", dependencies: ["Codecs"]),
        .testTarget(name: "VroomClientTests", dependencies: [
            "VroomClient", "Codecs", "WebRTC", "SDP", "Packets", "MediaIO", "Node", "Rooms", "VroomTesting",
            // The server's /metrics, read with the load tester's parser (ICETCPEndToEndTests).
            "LoadTestCore",
            .product(name: "Logging", package: "swift-log"),
            // HTTPS to a server with a test certificate (TLSEndToEndTests).
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        .testTarget(name: "LoadTestCoreTests", dependencies: ["LoadTestCore"], path: "loadtest/Tests/LoadTestCoreTests"),
        // Reads every import and checks it against DESIGN.md's map.
        .testTarget(name: "ArchitectureTests"),
        .testTarget(name: "NodeTests", dependencies: [
            "Node", "MediaIO", "Rooms", "VroomTesting", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "RoomsTests", dependencies: ["Rooms", "VroomTesting"]),
        .testTarget(name: "SignalingTests", dependencies: [
            "Signaling", "Node", "MediaIO", "Rooms", "AccessTokens", "VroomTesting",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket"),
        ]),
        .testTarget(name: "PersistenceTests", dependencies: [
            "Persistence", "Rooms", "VroomTesting", .product(name: "Logging", package: "swift-log"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
        ]),
        // Packets and Crypto: a TURN Allocate (STUN messages, MD5 key) against coturn.
        .testTarget(name: "AdminAPITests", dependencies: [
            "AdminAPI", "Node", "MediaIO", "Rooms", "Persistence", "VroomTesting", "LoadTestCore", "Packets",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
    ]
)
