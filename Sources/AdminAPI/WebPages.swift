import Foundation
import Hummingbird
import NIOCore

/// The web pages the server serves, from `WebPages/` (the package's
/// resources; no framework, no external URL):
/// - `/`: the meeting page (`meet.html`, `meet.js`, `meet.css`), built only
///   on the JavaScript SDK;
/// - `/sdk/vroom.js`: the SDK (clients/js), an ES module apps import from
///   any origin;
/// - with `--dev` only, `/dev/demo`: a bare client of PROTOCOL.md without
///   the SDK (`dev/`), which the interop scenarios drive to test the server
///   as a browser's own RTCPeerConnections see it. It exposes `window.vroom`
///   (`pcPub`, `pcSub`, `published`, `remote`, `events`, `errors`,
///   `summary()`: the getStats numbers the scenarios read, and the
///   simulcast, redirect and resume state); `?token=`, `?room=`,
///   `?autojoin=1`, `?server=ws://host:port`, `?simulcast=0`.
public struct WebPages: Sendable {
    /// One file of the page: where it is served and what it is.
    public struct File: Sendable {
        public var path: String
        public var contentType: String
        public var body: ByteBuffer
        public var devOnly: Bool
    }

    /// Served path, resource file (under `WebPages/`), content type (RFC
    /// 9239 for JavaScript), and whether only a `--dev` server serves it.
    static let layout: [(path: String, file: String, contentType: String, devOnly: Bool)] = [
        ("/", "meet.html", "text/html; charset=utf-8", false),
        ("/meet.js", "meet.js", "text/javascript; charset=utf-8", false),
        ("/meet.css", "meet.css", "text/css; charset=utf-8", false),
        ("/sdk/vroom.js", "sdk/vroom.js", "text/javascript; charset=utf-8", false),
        ("/dev/demo", "dev/index.html", "text/html; charset=utf-8", true),
        ("/dev/demo.js", "dev/demo.js", "text/javascript; charset=utf-8", true),
        ("/dev/demo.css", "dev/demo.css", "text/css; charset=utf-8", true),
    ]

    public let files: [File]

    /// Reads the page's files from the module's resource bundle (next to the
    /// executable as `Vroom_AdminAPI.resources`; deploy/Dockerfile copies it).
    public init() throws {
        files = try Self.layout.map { entry in
            let directory = (entry.file as NSString).deletingLastPathComponent
            let name = (entry.file as NSString).lastPathComponent
            guard let url = Bundle.module.url(
                forResource: name, withExtension: nil,
                subdirectory: directory.isEmpty ? "WebPages" : "WebPages/\(directory)")
            else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "WebPages/\(entry.file)"])
            }
            return File(
                path: entry.path, contentType: entry.contentType, body: ByteBuffer(bytes: try Data(contentsOf: url)),
                devOnly: entry.devOnly)
        }
    }

    /// The file served at `path`, if any.
    public func file(at path: String) -> File? {
        files.first { $0.path == path }
    }
}

extension Router {
    /// The pages' routes (the `--dev` ones only when `dev`), not cached so
    /// that a new server version's pages are picked up. The SDK may be
    /// imported by a page of any origin (a module script is fetched with CORS).
    public func addWebPageRoutes(_ pages: WebPages, dev: Bool) {
        for file in pages.files where dev || !file.devOnly {
            var headers: HTTPFields = [.contentType: file.contentType, .cacheControl: "no-cache"]
            if file.path.hasPrefix("/sdk/") { headers[.accessControlAllowOrigin] = "*" }
            get(RouterPath(file.path)) { [headers] _, _ -> Response in
                Response(status: .ok, headers: headers, body: .init(byteBuffer: file.body))
            }
        }
    }
}
