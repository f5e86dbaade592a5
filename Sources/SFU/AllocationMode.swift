/// How a subscriber's video budget is shared among its subscribed tracks:
/// the bandwidth profile's `mode` (PROTOCOL.md section 7, Twilio's names).
public enum AllocationMode: String, Hashable, Sendable, CaseIterable {
    /// Every video track alike: the budget is shared a step at a time in
    /// track order; priority only decides who is switched off first.
    case grid
    /// Higher priority first: each priority group is brought up to its
    /// render cap before the next group gets more than its lowest layer.
    case collaboration
    /// The highest-priority tracks get their render cap; the others share
    /// what is left and may be switched off to make room for them.
    case presentation
}
