import Foundation
import SDP
import Testing

/// Round-trips SDP captured on this machine by the current Chromium,
/// aiortc and (when installed) Firefox ESR (scripts/test.sh runs scripts/capture-sdp-fixtures.sh into a
/// temporary folder and points VROOM_SDP_CAPTURE_DIR at it), so a browser
/// update that changes what it writes is caught, not only the committed
/// fixtures. Without the variable there is nothing to check.
@Suite struct FreshCaptureTests {
    static let directory = ProcessInfo.processInfo.environment["VROOM_SDP_CAPTURE_DIR"]

    static func captured() throws -> [URL] {
        guard let directory else { return [] }
        return try FileManager.default.contentsOfDirectory(
            at: URL(fileURLWithPath: directory), includingPropertiesForKeys: nil
        ).filter { $0.pathExtension == "sdp" }.sorted { $0.path < $1.path }
    }

    @Test(.enabled(if: directory != nil, "set VROOM_SDP_CAPTURE_DIR to a folder of fresh captures"))
    func everyFreshCaptureRoundTrips() throws {
        let files = try Self.captured()
        // Chromium and aiortc, each an offer and an answer to the other, and
        // Chromium's simulcast publish; Firefox's simulcast publish when
        // firefox-esr is installed.
        let names = Set(files.map(\.lastPathComponent))
        let required: Set = [
            "chromium-offer.sdp", "chromium-answer.sdp", "aiortc-offer.sdp", "aiortc-answer.sdp",
            "chromium-simulcast-offer.sdp",
        ]
        #expect(names.subtracting(["firefox-simulcast-offer.sdp"]) == required, "captured: \(names.sorted())")
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            let description = try SessionDescription(parsing: text)
            let crlf = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n")
            #expect(description.text == crlf, "\(file.lastPathComponent) does not round-trip as text")
            #expect(try SessionDescription(parsing: description.text) == description)
            #expect(!description.bundleGroups.isEmpty, "\(file.lastPathComponent) has no BUNDLE group")
            if file.lastPathComponent.hasSuffix("simulcast-offer.sdp") {
                // One video m-line sending three RID layers, lowest first.
                #expect(description.media.map(\.kind) == [.video])
                #expect(description.media.first?.simulcast?.send.map { $0.map(\.rid) } == [["q"], ["h"], ["f"]])
            } else {
                #expect(description.media.contains { $0.kind == .audio } && description.media.contains { $0.kind == .video })
            }
        }
    }
}
