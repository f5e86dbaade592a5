import Foundation

/// An executable product that `swift test` built (every product is built
/// beside the test bundle), for tests that run the real `vroom-server`.
public enum BuiltProduct {
    public struct NotBuilt: Error, CustomStringConvertible {
        public var name: String
        public var searchedFrom: String
        public var description: String { "no built \(name) near \(searchedFrom): run swift build first" }
    }

    /// The path of the built executable `name`, found next to the running
    /// test binary or up to two folders above it.
    public static func url(named name: String) throws -> URL {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw NotBuilt(name: name, searchedFrom: testBinary.path)
    }
}
