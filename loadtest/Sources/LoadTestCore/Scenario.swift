import Foundation

/// A named load shape kept as JSON in `loadtest/scenarios/NAME.json`. Every
/// field is optional: what a scenario leaves out comes from the defaults,
/// and any flag given on the command line overrides the scenario.
///
/// ```json
/// { "description": "4 rooms of 1 publisher and 3 subscribers",
///   "rooms": 4, "publishers": 1, "subscribers": 3, "duration": 30, "ramp": 4 }
/// ```
public struct Scenario: Sendable, Equatable, Codable {
    public var description: String?
    public var rooms: Int?
    public var publishers: Int?
    public var subscribers: Int?
    public var audioOnly: Bool?
    public var videoResolution: VideoResolution?
    public var videoBitrate: BitRate?
    public var videoFrameRate: Int?
    public var simulcast: Bool?
    /// `"320x180:50%,1280x720:50%"`, as `--render`.
    public var render: RenderMix?
    public var renderChangeAfter: Double?
    /// `"250,800,0"`, as `--downlink-kbps`.
    public var downlinkKbps: DownlinkGroups?
    public var duration: Double?
    public var ramp: Double?
    public var settle: Double?
    public var seed: UInt64?
    public var decodeSample: Int?
    public var maxLoss: Double?

    public init() {}

    public struct NotFound: Error, CustomStringConvertible {
        public var name: String
        public var searched: [String]
        public var description: String {
            "no scenario named \(name); looked in: \(searched.joined(separator: ", "))"
        }
    }

    public struct Invalid: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "scenario \(path): \(reason)" }
    }

    /// Decodes a scenario; unknown keys are refused so a typo ("subscriber")
    /// is an error, not a silently ignored setting.
    public static func decode(_ data: Data, path: String) throws -> Scenario {
        do {
            guard let keys = try? JSONDecoder().decode(ObjectKeys.self, from: data) else {
                throw Invalid(path: path, reason: "not a JSON object")
            }
            let known = Set(CodingKeys.allCases.map(\.stringValue))
            if let unknown = keys.names.sorted().first(where: { !known.contains($0) }) {
                throw Invalid(path: path, reason: "unknown key \"\(unknown)\" (known: \(known.sorted().joined(separator: ", ")))")
            }
            return try JSONDecoder().decode(Scenario.self, from: data)
        } catch let error as Invalid {
            throw error
        } catch {
            throw Invalid(path: path, reason: "\(error)")
        }
    }

    /// Finds `name`: a path to a file when it names one (or ends in .json),
    /// else `name.json` in each of `directories`, first match wins.
    public static func locate(_ name: String, in directories: [String], fileManager: FileManager = .default) throws -> String {
        if name.hasSuffix(".json") || name.contains("/") {
            guard fileManager.fileExists(atPath: name) else { throw NotFound(name: name, searched: [name]) }
            return name
        }
        var searched: [String] = []
        for directory in directories {
            let path = (directory as NSString).appendingPathComponent(name + ".json")
            searched.append(path)
            if fileManager.fileExists(atPath: path) { return path }
        }
        throw NotFound(name: name, searched: searched)
    }

    /// Where `--scenario NAME` looks, in order: `$VROOM_LOADTEST_SCENARIOS`,
    /// `./loadtest/scenarios`, `./scenarios`, then `loadtest/scenarios` in
    /// each folder above the executable (a build in `.build/release/` of
    /// a checkout finds the checkout's scenarios).
    public static func searchDirectories(environment: [String: String], currentDirectory: String, executablePath: String) -> [String] {
        var out: [String] = []
        if let fromEnvironment = environment["VROOM_LOADTEST_SCENARIOS"], !fromEnvironment.isEmpty { out.append(fromEnvironment) }
        out.append((currentDirectory as NSString).appendingPathComponent("loadtest/scenarios"))
        out.append((currentDirectory as NSString).appendingPathComponent("scenarios"))
        var directory = (executablePath as NSString).deletingLastPathComponent
        for _ in 0..<5 {
            directory = (directory as NSString).deletingLastPathComponent
            if directory.isEmpty || directory == "/" { break }
            out.append((directory as NSString).appendingPathComponent("loadtest/scenarios"))
        }
        return out
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case description, rooms, publishers, subscribers, audioOnly, videoResolution, videoBitrate, videoFrameRate
        case simulcast, render, renderChangeAfter, downlinkKbps, duration, ramp, settle, seed, decodeSample, maxLoss
    }
}

/// The keys of a JSON object, whatever their values (to refuse unknown ones).
struct ObjectKeys: Decodable {
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    var names: [String]

    init(from decoder: any Decoder) throws {
        names = try decoder.container(keyedBy: Key.self).allKeys.map(\.stringValue)
    }
}
