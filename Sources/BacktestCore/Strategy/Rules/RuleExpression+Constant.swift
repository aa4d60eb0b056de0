/// Expressions of numbers alone (a sweep's constraint over its parameters): their value without any bar.
extension RuleExpression {
  /// The number an expression of constants, arithmetic, `abs`, `min` and `max` gives (NaN where undefined, as the rule
  /// language computes it); `nil` when it reads a bar, the position or an indicator.
  var constantNumber: Double? {
    switch self {
    case .constant(let c): return c
    case .negate(let x): return x.constantNumber.map { -$0 }
    case .arithmetic(let op, let a, let b):
      guard let x = a.constantNumber, let y = b.constantNumber else { return nil }
      return RuleArithmetic.apply(op, x, y)
    case .function(let f, let xs, _) where [.abs, .min, .max].contains(f):
      let values = xs.compactMap(\.constantNumber)
      guard values.count == xs.count else { return nil }
      if values.contains(where: \.isNaN) { return .nan }
      return f == .abs ? Swift.abs(values[0]) : f == .min ? Swift.min(values[0], values[1]) : Swift.max(values[0], values[1])
    default: return nil
    }
  }

  /// Whether a condition of constants holds (false where a value is undefined); `nil` when it reads anything else.
  package var constantTruth: Bool? {
    switch self {
    case .compare(let op, let a, let b):
      guard let x = a.constantNumber, let y = b.constantNumber else { return nil }
      return RuleArithmetic.holds(op, x, y)
    case .and(let a, let b):
      guard let x = a.constantTruth, let y = b.constantTruth else { return nil }
      return x && y
    case .or(let a, let b):
      guard let x = a.constantTruth, let y = b.constantTruth else { return nil }
      return x || y
    case .not(let x): return x.constantTruth.map { !$0 }
    default: return nil
    }
  }
}
