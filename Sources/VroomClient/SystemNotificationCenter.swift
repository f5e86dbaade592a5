import Foundation
import Synchronization

/// Delivers `SystemNotification`s to the rooms that observe them. Rooms use
/// `ConnectOptions.notificationCenter` (`.default` unless a test injects
/// its own). Observers are held weakly: a room that is gone is skipped.
public final class SystemNotificationCenter: Sendable {
    public static let `default` = SystemNotificationCenter()

    private struct Observer {
        weak var target: (any SystemNotificationObserver)?
    }

    private let observers = Mutex<[ObjectIdentifier: Observer]>([:])

    public init() {}

    /// Tells every live observer, in no particular order.
    public func post(_ notification: SystemNotification) {
        let targets = observers.withLock { observers in
            observers = observers.filter { $0.value.target != nil }
            return observers.values.compactMap(\.target)
        }
        for target in targets { target.receive(notification) }
    }

    func add(_ observer: any SystemNotificationObserver) {
        observers.withLock { $0[ObjectIdentifier(observer)] = Observer(target: observer) }
    }

    func remove(_ observer: any SystemNotificationObserver) {
        observers.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(observer)) }
    }
}

/// A room's side of the center.
protocol SystemNotificationObserver: AnyObject, Sendable {
    func receive(_ notification: SystemNotification)
}
