import Foundation
import Testing

/// DESIGN.md's layer map ("Layers"), read from the code: every `import` of
/// one of our modules under `Sources/` and `loadtest/Sources/` must be an
/// arrow drawn here, and no shipped product may reach `VroomTesting`.
/// When the diagram changes, this list changes with it, in the same commit.
@Suite struct ImportGraphTests {
    /// Each module's allowed imports of our own modules: the diagram's arrows,
    /// plus the C shims and the lower cores a module uses directly (always
    /// downward in the map).
    static let allowed: [String: Set<String>] = [
        // vroom-server: configuration and wiring of everything below it.
        "VroomServer": ["AdminAPI", "Signaling", "Node", "MediaIO", "Rooms", "Persistence", "AccessTokens"],
        "AdminAPI": ["Node", "Rooms", "Persistence"],
        "Signaling": ["Node", "Rooms", "AccessTokens"],
        "Node": ["Rooms", "MediaIO", "Persistence"],
        "MediaIO": ["SFU", "WebRTC", "Packets", "CVroomUDP"],
        "Rooms": [],
        "SFU": ["Packets"],
        "WebRTC": ["Packets", "SDP", "COpenSSL"],
        "SDP": [],
        "Packets": ["COpenSSL"],
        "Persistence": ["Rooms"],
        "VroomClient": ["WebRTC", "SDP", "Packets", "Codecs"],
        "Codecs": ["CVPX", "COpus"],
        "LoadTestCore": ["Codecs"],
        "VroomLoadTest": ["VroomClient", "Codecs", "LoadTestCore", "AccessTokens"],
        "VroomJoin": ["VroomClient"],
        // Minting and the HS256 key (PROTOCOL.md section 2): a leaf that the
        // server and the load tester share, since neither may import the other.
        "AccessTokens": [],
        // Test support, linked by tests and the test tool vroom-impair only.
        "VroomTesting": ["Packets", "CVroomUDP", "Codecs"],
        // SFU: ForwardingPath sets a room's Router up as MediaPlane's jobs
        // do, for the production-path benchmark (issue 16 item 6).
        "VroomTestPeer": ["MediaIO", "SFU", "WebRTC", "Packets", "CVroomUDP"],
        "VroomImpair": ["VroomTesting"],
        // libsrtp2 as the reference for SRTP tests and benchmarks only.
        "LibSRTPReference": ["CSRTP"],
        // System-library and C shims: nothing of ours.
        "CSRTP": [], "COpenSSL": [], "CVPX": [], "COpus": [], "CVroomUDP": [],
    ]

    /// What ships: the server, the load tester and the public libraries.
    /// (vroom-impair is a test tool: the interop tests' impairment relay.)
    static let shipped = ["VroomServer", "VroomLoadTest", "VroomJoin", "VroomClient", "Packets", "SDP", "Codecs", "AccessTokens"]

    /// The arrows DESIGN.md forbids in so many words ("Never: …").
    static let forbidden: [(from: String, to: String)] = [
        ("AdminAPI", "Signaling"), ("Signaling", "AdminAPI"),
        ("AdminAPI", "MediaIO"), ("AdminAPI", "SFU"), ("AdminAPI", "WebRTC"), ("AdminAPI", "SDP"),
        ("Signaling", "MediaIO"), ("Signaling", "SFU"), ("Signaling", "WebRTC"), ("Signaling", "SDP"),
        ("MediaIO", "Rooms"), ("MediaIO", "SDP"), ("SFU", "WebRTC"),
        ("VroomClient", "Rooms"), ("VroomClient", "MediaIO"), ("VroomClient", "SFU"), ("VroomClient", "Signaling"),
    ]

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every module folder of ours and the modules it imports.
    static func imports() throws -> [String: Set<String>] {
        var graph: [String: Set<String>] = [:]
        for folder in ["Sources", "loadtest/Sources"] {
            let base = root.appendingPathComponent(folder)
            for module in try FileManager.default.contentsOfDirectory(atPath: base.path) {
                var isDirectory: ObjCBool = false
                let directory = base.appendingPathComponent(module)
                guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
                else { continue }
                var imported: Set<String> = []
                let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
                while let file = files?.nextObject() as? URL {
                    guard file.pathExtension == "swift" else { continue }
                    imported.formUnion(importedModules(in: try String(contentsOf: file, encoding: .utf8)))
                }
                graph[module] = imported
            }
        }
        return graph
    }

    /// The module names of a file's import declarations: `import X`,
    /// `@testable import X`, `import struct X.Y`, `@_exported import X`.
    static func importedModules(in source: String) -> Set<String> {
        var modules: Set<String> = []
        for line in source.split(separator: "\n") {
            var words = line.split(separator: " ").map(String.init)
            while let first = words.first, first.hasPrefix("@") || ["public", "internal", "package"].contains(first) {
                words.removeFirst()
            }
            guard words.first == "import", words.count >= 2 else { continue }
            let kinds: Set<String> = ["struct", "class", "enum", "protocol", "typealias", "func", "let", "var"]
            let path = kinds.contains(words[1]) && words.count >= 3 ? words[2] : words[1]
            modules.insert(String(path.split(separator: ".")[0]))
        }
        return modules
    }

    @Test func everyImportIsAnArrowOfTheMap() throws {
        let graph = try Self.imports()
        let ours = Set(graph.keys)
        #expect(ours.count > 15, "the module folders were not found under \(Self.root.path)")
        for (module, imported) in graph.sorted(by: { $0.key < $1.key }) {
            guard let allowed = Self.allowed[module] else {
                Issue.record("module \(module) is not in the map (DESIGN.md, \"Layers\"): add it to the diagram and to this test")
                continue
            }
            for target in imported.intersection(ours).subtracting([module]).sorted() where !allowed.contains(target) {
                Issue.record("\(module) imports \(target): not an arrow of DESIGN.md's map")
            }
        }
    }

    @Test func theMapHasNoForbiddenArrow() {
        for (from, to) in Self.forbidden {
            #expect(Self.allowed[from]?.contains(to) != true, "\(from) -> \(to) is forbidden by DESIGN.md")
        }
    }

    @Test func noShippedProductReachesVroomTesting() throws {
        let graph = try Self.imports()
        for product in Self.shipped {
            var seen: Set<String> = [product]
            var queue = [product]
            while let module = queue.popLast() {
                for next in graph[module] ?? [] where graph[next] != nil && seen.insert(next).inserted {
                    queue.append(next)
                }
            }
            #expect(!seen.contains("VroomTesting"), "\(product) links VroomTesting through \(seen.sorted())")
            // SRTP runs on OpenSSL's EVP (issue 16): libsrtp2 (and Debian's
            // NSS under it) is for tests and benchmarks only.
            for reference in ["LibSRTPReference", "CSRTP"] {
                #expect(!seen.contains(reference), "\(product) links \(reference) through \(seen.sorted())")
            }
        }
    }

    @Test func theImportReaderFindsEveryForm() {
        let source = """
            import Foundation
            @testable import MediaIO
            import struct Rooms.RoomSID
            @_exported import Packets
            // import Commented
            let x = "import Nothing"
            """
        #expect(Self.importedModules(in: source) == ["Foundation", "MediaIO", "Rooms", "Packets"])
    }
}
