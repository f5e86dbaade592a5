import Foundation
import Hummingbird
import NIOCore

/// The demo page served at `GET /`: a plain HTML, JavaScript and CSS client
/// of PROTOCOL.md (no framework, no external URL), in `DemoPage/` as the
/// package's resources, with which a person joins a room with camera and
/// microphone and sees and hears the others.
///
/// The token comes from `?token=...` or is pasted; `?room=` fills the room;
/// `?autojoin=1` joins at load (tests); `?server=ws://host:port` points the
/// signaling socket elsewhere than the page's own origin; `?simulcast=0`
/// publishes the camera as one 640x480 stream instead of VP8 simulcast
/// (q/h/f from a 1280x720 capture, PROTOCOL.md section 7). The page sends
/// each remote video's tile size as `setContentPreferences`, shows
/// `trackSwitchedOff`, and pauses the layers `publisherLayers` leaves out.
/// In a cluster (PROTOCOL.md 8) it follows `redirect` (at most 3 times) and
/// `reconnect` (resumes at the new node with its sessionToken, on new
/// PeerConnections).
/// It exposes `window.vroom` (`pcPub`, `pcSub`, `published`, `remote`,
/// `events`, `errors`, `signalURL`, `redirects`, `moves`, `sessionToken`,
/// the simulcast state: `simulcastAccepted`,
/// `contentPreferences`, `switchedOff`, `publisherLayers`; `join()`,
/// `leave()`, `setTrackEnabled(kind, enabled)`, `senderEncodings()`,
/// `handleMessage(message)`, and `summary()`: the getStats numbers the
/// interop test reads).
public struct DemoPage: Sendable {
    /// One file of the page: where it is served and what it is.
    public struct File: Sendable {
        public var path: String
        public var contentType: String
        public var body: ByteBuffer
    }

    /// Served path, resource file name and content type (RFC 9239 for JavaScript).
    static let layout: [(path: String, file: String, contentType: String)] = [
        ("/", "index.html", "text/html; charset=utf-8"),
        ("/demo.js", "demo.js", "text/javascript; charset=utf-8"),
        ("/demo.css", "demo.css", "text/css; charset=utf-8"),
    ]

    public let files: [File]

    /// Reads the page's files from the module's resource bundle (next to the
    /// executable as `Vroom_AdminAPI.resources`; deploy/Dockerfile copies it).
    public init() throws {
        files = try Self.layout.map { entry in
            guard let url = Bundle.module.url(forResource: entry.file, withExtension: nil, subdirectory: "DemoPage") else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "DemoPage/\(entry.file)"])
            }
            return File(path: entry.path, contentType: entry.contentType, body: ByteBuffer(bytes: try Data(contentsOf: url)))
        }
    }

    /// The file served at `path`, if any.
    public func file(at path: String) -> File? {
        files.first { $0.path == path }
    }
}

extension Router {
    /// `GET /` and the page's script and style sheet, not cached so that a
    /// new server version's page is picked up.
    public func addDemoPageRoutes(_ page: DemoPage) {
        for file in page.files {
            get(RouterPath(file.path)) { _, _ -> Response in
                Response(
                    status: .ok,
                    headers: [.contentType: file.contentType, .cacheControl: "no-cache"],
                    body: .init(byteBuffer: file.body))
            }
        }
    }
}
