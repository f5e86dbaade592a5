import Node

extension SignalingMetrics {
    /// Counts `message` when it carries an error code.
    func count(_ message: ServerMessage) {
        switch message {
        case .error(_, let code, _), .disconnected(let code, _): errorSent(code.rawValue)
        default: break
        }
    }
}
