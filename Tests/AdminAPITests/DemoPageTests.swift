import AdminAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import Node

@Suite struct DemoPageTests {
    func app() -> some ApplicationProtocol {
        let router = Router()
        router.addDemoPageRoute()
        return Application(router: router)
    }

    @Test func rootServesTheDemoPage() async throws {
        try await app().test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                let body = String(buffer: response.body)
                #expect(body == DemoPage.html)
                #expect(body.hasPrefix("<!doctype html>"))
            }
        }
    }

    @Test func thePageIsAClientOfTheProtocol() {
        let html = DemoPage.html
        for needle in [
            "/v1/signal?access_token=", "bundlePolicy: \"max-bundle\"", "rtcpMuxPolicy: \"require\"",
            "type: \"publish\"", "type: \"subscribeAnswer\"", "setTrackEnabled", "type: \"ping\"",
            "autojoin", "window.vroom", "getUserMedia",
        ] {
            #expect(html.contains(needle), "missing \(needle)")
        }
    }

    @Test func thePageLoadsNothingFromElsewhere() {
        // Self-contained: no script, style or image from another origin.
        for needle in ["http://", "https://", "<script src", "<link", "@import"] {
            #expect(!DemoPage.html.contains(needle), "found \(needle)")
        }
    }
}
