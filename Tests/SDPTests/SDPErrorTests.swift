import SDP
import Testing

@Test func sdpErrorNamesTheLine() {
    #expect(SDPError(line: 3, "bad").description == "SDP line 3: bad")
    #expect(SDPError(line: 0, "empty").description == "SDP: empty")
}
