/// The strategies a run file may name in `strategy.type`: a value passed to
/// configuration and commands (`backtest` passes the built-ins; an
/// executable of your own passes yours too).
public struct StrategyCatalog: Sendable {
  /// One strategy type, opened once.
  public struct Entry: Sendable {
    /// The name a run file uses in `strategy.type`.
    public let name: String
    /// One line on what the strategy does (`backtest strategies`).
    public let summary: String
    /// The parameters' descriptions, made when asked for: a run configures
    /// one strategy, and making every strategy's on opening the catalog took
    /// 3.9% of a 2,000-bar run's CPU (0.5% now, by `perf`).
    public var parameters: [ParameterInfo] { info() }
    @usableFromInline let info: @Sendable () -> [ParameterInfo]
    @usableFromInline let configure: @Sendable (ConfigTable) throws -> ConfiguredStrategy

    /// The entry of the strategy type `S`.
    @inlinable
    public init<S: Strategy>(_ type: S.Type) {
      name = S.name
      summary = S.summary
      info = { S.Parameters.info }
      configure = { try ConfiguredStrategy.configure(S.self, table: $0) }
    }
  }

  /// One allocation strategy type, opened once.
  public struct AllocationEntry: Sendable {
    /// The name a run file uses in `strategy.type`.
    public let name: String
    /// One line on what the strategy does (`backtest strategies`).
    public let summary: String
    /// The parameters' descriptions, made when asked for.
    public var parameters: [ParameterInfo] { info() }
    @usableFromInline let info: @Sendable () -> [ParameterInfo]
    @usableFromInline let configure: @Sendable (ConfigTable, [String]) throws -> ConfiguredAllocation
    /// The parameters a `strategy:` section declares (a rotation's `params` among them), read without checking them
    /// against the assets.
    @usableFromInline package let declared: @Sendable (ConfigTable) throws -> [ParameterInfo]

    /// The entry of the allocation strategy type `S`, its parameters checked against the run's symbols.
    @inlinable
    public init<S: AllocationStrategy>(_ type: S.Type) {
      self.init(type) { try ConfiguredAllocation.configure(S.self, table: $0, symbols: $1) }
    }

    /// An entry whose `strategy:` section is read by `configure` (fixed weights read theirs with the assets they name).
    @inlinable
    public init<S: AllocationStrategy>(_ type: S.Type, configure: @escaping @Sendable (ConfigTable, [String]) throws -> ConfiguredAllocation) {
      name = S.name
      summary = S.summary
      info = { S.Parameters.info }
      self.configure = configure
      declared = { try S.Parameters.read(from: $0).parameterInfo }
    }
  }

  /// The strategies over one asset.
  public var entries: [Entry]
  /// The strategies over several assets (`data.assets`).
  public var allocations: [AllocationEntry]

  /// A catalog of these single-asset and allocation strategies.
  public init(_ entries: [Entry], allocations: [AllocationEntry] = []) {
    self.entries = entries
    self.allocations = allocations
  }

  /// The catalog with `type` added (replacing a built-in of the same name).
  @inlinable
  public func adding<S: Strategy>(_ type: S.Type) -> StrategyCatalog {
    StrategyCatalog(entries.filter { $0.name != S.name } + [Entry(type)], allocations: allocations.filter { $0.name != S.name })
  }

  /// The catalog with the allocation strategy `type` added (replacing a built-in of the same name).
  @inlinable
  public func adding<S: AllocationStrategy>(_ type: S.Type) -> StrategyCatalog {
    StrategyCatalog(entries.filter { $0.name != S.name }, allocations: allocations.filter { $0.name != S.name } + [AllocationEntry(type)])
  }

  /// The single-asset strategies' names.
  public var names: [String] { entries.map(\.name) }
  /// Every strategy's name: the single-asset ones, then those over several assets.
  public var allNames: [String] { names + allocations.map(\.name) }

  /// The single-asset strategy named `name`, if any.
  public func entry(named name: String) -> Entry? { entries.first { $0.name == name } }

  /// The allocation strategy named `name`, if any.
  public func allocation(named name: String) -> AllocationEntry? { allocations.first { $0.name == name } }

  /// Reads the `strategy:` section of a run over several assets with these `symbols`.
  ///
  /// - Throws: `InputError` for an unknown type or a bad parameter.
  public func configureAllocation(_ table: ConfigTable, symbols: [String]) throws -> ConfiguredAllocation {
    guard let typeName = try table.string("type"), let entry = allocation(named: typeName) else {
      let typeName = try table.string("type") ?? ""
      let hint = closestMatch(to: typeName, in: allNames).map { "; did you mean '\($0)'?" } ?? ""
      throw InputError("unknown strategy '\(typeName)'\(hint); expected one of \(allocations.map(\.name).joined(separator: ", "))",
                       at: table.node("type")?.location ?? table.location)
    }
    return try entry.configure(table, symbols)
  }

  /// Reads the `strategy:` section: `type` picks the strategy, the rest are its parameters.
  ///
  /// - Throws: `InputError` for a missing or unknown type (suggesting the
  ///   closest name in this catalog) or a bad parameter.
  public func configure(_ table: ConfigTable) throws -> ConfiguredStrategy {
    guard let typeName = try table.string("type") else {
      throw InputError("missing 'strategy.type'; expected one of \(names.joined(separator: ", "))", at: table.location)
    }
    if let allocation = allocation(named: typeName) {
      throw InputError("the \(typeName) strategy (\(allocation.summary)) allocates among several assets; expected a strategy over one asset here: \(names.joined(separator: ", "))",
                       at: table.node("type")!.location)
    }
    guard let entry = entry(named: typeName) else {
      let hint = closestMatch(to: typeName, in: allNames).map { "; did you mean '\($0)'?" } ?? ""
      throw InputError("unknown strategy '\(typeName)'\(hint); expected one of \(names.joined(separator: ", "))",
                       at: table.node("type")!.location)
    }
    return try entry.configure(table)
  }
}

/// The built-in strategies.
public enum BuiltInStrategies {
  /// `bollinger_rsi`, `sma_cross`, `buy_and_hold`, `rules` and `signals` over one asset; fixed weights (`portfolio`) and
  /// `rotation` over several.
  public static let catalog = StrategyCatalog([.init(BollingerRSI.self), .init(SMACross.self), .init(BuyAndHold.self), .init(RulesStrategy.self),
                                                 .init(SignalsFile.self)],
                                                allocations: [.init(FixedWeights.self, configure: FixedWeights.configure), .init(Rotation.self)])
}
