import AdminAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import Node

@Suite struct WebPagesTests {
    let pages: WebPages

    init() throws {
        pages = try WebPages()
    }

    func app(dev: Bool = false) -> some ApplicationProtocol {
        let router = Router()
        router.addWebPageRoutes(pages, dev: dev)
        return Application(router: router)
    }

    func text(_ path: String) -> String { String(buffer: pages.file(at: path)!.body) }

    /// Issue 17: `/` is the meeting page.
    @Test func rootServesTheMeetingPage() async throws {
        try await app().test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                let body = String(buffer: response.body)
                #expect(body == text("/"))
                #expect(body.hasPrefix("<!doctype html>"))
                #expect(body.contains(#"<script type="module" src="meet.js"></script>"#))
                #expect(body.contains(#"<link rel="stylesheet" href="meet.css">"#))
            }
        }
    }

    @Test(arguments: [
        ("/meet.js", "text/javascript; charset=utf-8"), ("/meet.css", "text/css; charset=utf-8"),
        ("/dev/demo.js", "text/javascript; charset=utf-8"), ("/dev/demo.css", "text/css; charset=utf-8"),
    ])
    func scriptsAndStyleSheetsAreServedWithTheirTypes(path: String, contentType: String) async throws {
        let expected = try #require(pages.file(at: path))
        try await app(dev: true).test(.router) { client in
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == contentType)
                #expect(response.headers[.cacheControl] == "no-cache")
                #expect(response.body == expected.body)
                #expect(response.body.readableBytes > 500)
            }
        }
    }

    /// The bare protocol client is a development tool: a server without
    /// `--dev` does not serve it.
    @Test(arguments: ["/dev/demo", "/dev/demo.js", "/dev/demo.css"])
    func theProtocolClientIsServedInDevModeOnly(path: String) async throws {
        try await app(dev: false).test(.router) { client in
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
        try await app(dev: true).test(.router) { client in
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }

    /// The JavaScript SDK (issue 17): an ES module any origin may import.
    @Test func theSDKIsServedAsAModuleToAnyOrigin() async throws {
        let expected = try #require(pages.file(at: "/sdk/vroom.js"))
        #expect(String(buffer: expected.body).contains("export async function connect("))
        try await app().test(.router) { client in
            try await client.execute(uri: "/sdk/vroom.js", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                #expect(response.headers[.accessControlAllowOrigin] == "*")
                #expect(response.body == expected.body)
            }
            // The page's own files stay same-origin only.
            try await client.execute(uri: "/meet.js", method: .get) { response in
                #expect(response.headers[.accessControlAllowOrigin] == nil)
            }
        }
    }

    /// The meeting page is built only on the SDK: it imports it, and
    /// neither opens the signaling socket nor makes a PeerConnection itself.
    @Test func theMeetingPageIsBuiltOnlyOnTheSDK() {
        let script = text("/meet.js")
        #expect(script.contains(#"from "./sdk/vroom.js""#))
        for needle in ["RTCPeerConnection", "/v1/signal", "new WebSocket"] {
            #expect(!script.contains(needle), "meet.js uses \(needle) itself")
        }
    }

    @Test func theProtocolClientSpeaksTheProtocolItself() {
        let script = text("/dev/demo.js")
        #expect(text("/dev/demo").contains(#"<script src="demo.js"></script>"#))
        for needle in [
            "/v1/signal", "access_token=", "case \"redirect\"", "case \"reconnect\"",
            "bundlePolicy: \"max-bundle\"", "rtcpMuxPolicy: \"require\"",
            "type: \"publish\"", "type: \"subscribeAnswer\"", "setTrackEnabled", "type: \"ping\"",
            "autojoin", "window.vroom", "getUserMedia",
        ] {
            #expect(script.contains(needle), "missing \(needle)")
        }
    }

    @Test func thePagesLoadNothingFromElsewhere() {
        // Self-contained: no script, style or image from another origin.
        for file in pages.files where file.path != "/sdk/vroom.js" {
            let body = String(buffer: file.body)
            for needle in ["http://", "https://", "@import", "src=\"//", "href=\"//"] {
                #expect(!body.contains(needle), "\(file.path): found \(needle)")
            }
        }
    }
}
