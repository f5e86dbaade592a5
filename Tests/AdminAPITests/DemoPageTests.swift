import AdminAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import Node

@Suite struct DemoPageTests {
    let page: DemoPage

    init() throws {
        page = try DemoPage()
    }

    func app() -> some ApplicationProtocol {
        let router = Router()
        router.addDemoPageRoutes(page)
        return Application(router: router)
    }

    /// The page's three files, as the package's resources hold them.
    var html: String { String(buffer: page.file(at: "/")!.body) }
    var script: String { String(buffer: page.file(at: "/demo.js")!.body) }
    var style: String { String(buffer: page.file(at: "/demo.css")!.body) }

    @Test func rootServesTheDemoPage() async throws {
        try await app().test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                let body = String(buffer: response.body)
                #expect(body == html)
                #expect(body.hasPrefix("<!doctype html>"))
            }
        }
    }

    @Test(arguments: [("/demo.js", "text/javascript; charset=utf-8"), ("/demo.css", "text/css; charset=utf-8")])
    func theScriptAndStyleSheetAreServedWithTheirTypes(path: String, contentType: String) async throws {
        let expected = try #require(page.file(at: path))
        try await app().test(.router) { client in
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == contentType)
                #expect(response.headers[.cacheControl] == "no-cache")
                #expect(response.body == expected.body)
                #expect(response.body.readableBytes > 500)
            }
        }
    }

    @Test func thePageLoadsItsOwnScriptAndStyleSheet() {
        #expect(html.contains(#"<script src="demo.js"></script>"#))
        #expect(html.contains(#"<link rel="stylesheet" href="demo.css">"#))
        #expect(style.contains("#grid"))
    }

    @Test func thePageIsAClientOfTheProtocol() {
        for needle in [
            "/v1/signal", "access_token=", "case \"redirect\"", "case \"reconnect\"",
            "bundlePolicy: \"max-bundle\"", "rtcpMuxPolicy: \"require\"",
            "type: \"publish\"", "type: \"subscribeAnswer\"", "setTrackEnabled", "type: \"ping\"",
            "autojoin", "window.vroom", "getUserMedia",
        ] {
            #expect(script.contains(needle), "missing \(needle)")
        }
    }

    @Test func thePageLoadsNothingFromElsewhere() {
        // Self-contained: no script, style or image from another origin;
        // the page's own two files are named relative to it.
        for file in [html, script, style] {
            for needle in ["http://", "https://", "@import", "src=\"//", "href=\"//"] {
                #expect(!file.contains(needle), "found \(needle)")
            }
        }
    }
}
