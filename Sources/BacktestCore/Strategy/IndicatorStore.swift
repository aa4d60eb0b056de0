import Foundation

/// Indicator columns computed once for one series of bars and shared by the
/// strategies built over it: a sweep gives all its combinations one store, so
/// an indicator that several parameter sets use (the same function with the
/// same parameters) is computed once, not once per combination.
///
/// A strategy takes its columns from the store in
/// `init(parameters:bars:indicators:)`, each under a key that declares it by
/// its parameters:
///
///     upper = indicators.shared("highest high \(p.entryPeriod)") { highest(bars.high, period: p.entryPeriod) }
///
/// A single run gets a store of its own, so the strategy computes the same
/// values either way, and each strategy type gets its own part of a sweep's
/// store, so two types never share a key. Safe to use from several threads: a
/// column asked for while another thread computes it is waited for, not
/// computed twice (a `compute` that asks for its own key would wait for ever).
/// The store keeps every value until it is released (a sweep's, when the
/// sweep ends): distinct columns × bars × 8 bytes.
public final class IndicatorStore: @unchecked Sendable {
  private struct Key: Hashable {
    var key: AnyHashable
    var type: ObjectIdentifier
  }
  private final class Slot: @unchecked Sendable {
    let lock = NSLock()
    var value: Any?
  }
  private let lock = NSLock()
  private var slots: [Key: Slot] = [:]
  private var scopes: [ObjectIdentifier: IndicatorStore] = [:]

  /// An empty store.
  public init() {}

  /// The part of this store that strategy type `type` sees: its own keys, apart from every other type's.
  @usableFromInline
  package func scope(for type: Any.Type) -> IndicatorStore {
    lock.lock()
    defer { lock.unlock() }
    if let scope = scopes[ObjectIdentifier(type)] { return scope }
    let scope = IndicatorStore()
    scopes[ObjectIdentifier(type)] = scope
    return scope
  }

  /// The value stored under `key`, made by `compute` when no strategy has asked for it yet.
  ///
  /// `key` must name everything the value depends on besides the bars: the
  /// indicator and each of its parameters (a string such as `"sma 20"`, or a
  /// struct of them). Values of different types are kept apart. The store
  /// keeps every value until it is released (a sweep's, when the sweep ends).
  public func shared<Value: Sendable>(_ key: some Hashable & Sendable, compute: () -> Value) -> Value {
    let id = Key(key: AnyHashable(key), type: ObjectIdentifier(Value.self))
    lock.lock()
    let slot: Slot
    if let found = slots[id] {
      slot = found
    } else {
      slot = Slot()
      slots[id] = slot
    }
    lock.unlock()
    slot.lock.lock()
    defer { slot.lock.unlock() }
    if let value = slot.value { return value as! Value }
    let value = compute()
    slot.value = value
    return value
  }

  /// How many values the store holds.
  public var count: Int {
    lock.lock()
    defer { lock.unlock() }
    return slots.count
  }
}
