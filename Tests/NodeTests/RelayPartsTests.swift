import Testing

@testable import Node

/// The relay's texts travel in NOTIFY-sized parts (ClusterNode+Relay):
/// cut between Unicode scalars, put together by index in any order.
@Suite struct RelayPartsTests {
    @Test func partsStayUnderTheLimitCutBetweenScalarsAndJoinBack() {
        let text = String(repeating: "aé€😀", count: 1_000)  // 1, 2, 3 and 4 UTF-8 bytes
        let parts = ClusterNode.parts(text, partBytes: 101)
        #expect(parts.count > 1)
        #expect(parts.allSatisfy { $0.utf8.count <= 101 && !$0.isEmpty })
        #expect(parts.joined() == text)
        #expect(Array(parts.joined().utf8) == Array(text.utf8))
        #expect(ClusterNode.parts("") == [""])
        #expect(ClusterNode.parts(String(repeating: "x", count: 7_800)).count == 1)
        #expect(ClusterNode.parts(String(repeating: "x", count: 7_801)).count == 2)
    }

    @Test func theAssemblerJoinsPartsInAnyOrderOnce() {
        let assembler = PartAssembler()
        #expect(assembler.add("one", "0", "1", "whole") == "whole")
        #expect(assembler.add("r", "2", "3", "c") == nil)
        #expect(assembler.add("r", "0", "3", "a") == nil)
        #expect(assembler.add("other", "0", "2", "x") == nil)
        #expect(assembler.add("r", "1", "3", "b") == "abc")
        #expect(assembler.add("r", "1", "3", "b") == nil, "a finished text starts over")
        #expect(assembler.add("bad", "3", "3", "z") == nil)
        #expect(assembler.add("bad", "x", "3", "z") == nil)
        #expect(assembler.add("other", "1", "2", "y") == "xy")
    }
}
