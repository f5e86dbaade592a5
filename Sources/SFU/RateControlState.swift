/// What the delay-based rate control is doing with its estimate.
public enum RateControlState: Sendable, Equatable {
    case hold
    case increase
    case decrease
}
