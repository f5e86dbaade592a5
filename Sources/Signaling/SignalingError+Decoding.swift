/// 53003 from a JSONDecoder error, naming the field by its path in the frame
/// (`field 'tracks[1].kind' must be one of "audio", "video"`).
extension SignalingError {
    init(decoding error: any Error) {
        guard let error = error as? DecodingError else {
            self = .invalidMessage("\(error)")
            return
        }
        switch error {
        case .typeMismatch(let type, let context):
            self = .invalidMessage("field '\(Self.path(context.codingPath))' must be \(Self.describe(type))")
        case .keyNotFound(let key, let context):
            self = .invalidMessage("field '\(Self.path(context.codingPath + [key]))' is required")
        case .valueNotFound(_, let context):
            // A `null` where a value is required counts as missing.
            self = .invalidMessage("field '\(Self.path(context.codingPath))' is required")
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            // Syntax errors, and nesting beyond JSONDecoder's 512 levels.
            self = .invalidMessage("not JSON")
        case .dataCorrupted(let context):
            self = .invalidMessage("field '\(Self.path(context.codingPath))' \(context.debugDescription)")
        @unknown default:
            self = .invalidMessage("\(error)")
        }
    }

    /// `rules[0].kind`: keys joined by dots, array indices in brackets.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type: "an integer"
        case is Double.Type: "a number"
        case is [Any].Type: "an array"
        case is [String: Any].Type: "an object"
        default: "a \(type)"
        }
    }
}
