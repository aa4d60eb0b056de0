/// What the bar loop keeps of each close (`Engine.trade`): the columns a run's
/// results and reports read, or only the running statistics a sweep ranks by.
@usableFromInline
protocol BarRecord {
  /// After the account is marked at the close of bar `t` (`Account.markedValue`). The record reads `account` and
  /// changes nothing in it: `inout` only lends it without a copy (a borrowed `Account` is copied per bar).
  mutating func record(_ t: Int, _ account: inout Account)
  /// After the last bar, whose equity the END_OF_DATA close lowered by its commission, `fee`.
  mutating func finish(lastBarLess fee: Double)
}

/// The record a run's results are made of: equity, cash and each asset's shares
/// at every close (and, with several assets, each one's marked price), written
/// into columns of the range's length (`Account.equityColumn` and the others).
@usableFromInline
struct ColumnRecord: BarRecord {
  @usableFromInline let equity, cash, shares, prices: UnsafeMutableBufferPointer<Double>
  /// The first bar of the range and its length.
  @usableFromInline let first: Int, count: Int

  @inlinable
  init(equity: UnsafeMutableBufferPointer<Double>, cash: UnsafeMutableBufferPointer<Double>, shares: UnsafeMutableBufferPointer<Double>,
       prices: UnsafeMutableBufferPointer<Double>, first: Int, count: Int) {
    (self.equity, self.cash, self.shares, self.prices, self.first, self.count) = (equity, cash, shares, prices, first, count)
  }

  @inlinable @inline(__always)
  mutating func record(_ t: Int, _ account: inout Account) {
    let column = t - first
    for a in account.shares.indices {
      if !prices.isEmpty { prices[a * count + column] = account.lent.lastClose[a] }
      shares[a * count + column] = account.shares[a]
    }
    equity[column] = account.markedValue
    cash[column] = account.cash
  }

  @inlinable
  mutating func finish(lastBarLess fee: Double) {
    equity[count - 1] -= fee
  }

  /// Runs `body` with a record whose columns are made for `account`'s range, then hands them to the account.
  ///
  /// The columns are not filled first: the loop writes every element of them (one per bar of the range).
  @inlinable
  static func recording(_ account: inout Account, _ body: (inout Account, inout ColumnRecord) -> Void) {
    let n = account.end - account.first, m = account.shares.count
    var cash: ContiguousArray<Double> = [], shares: ContiguousArray<Double> = [], prices: ContiguousArray<Double> = []
    let equity = ContiguousArray<Double>(count: n) { equity in
    cash = ContiguousArray(count: n) { cash in
    shares = ContiguousArray(count: m * n) { shares in
    prices = ContiguousArray(count: account.market.isSingleAsset ? 0 : m * n) { prices in
      var record = ColumnRecord(equity: equity, cash: cash, shares: shares, prices: prices, first: account.first, count: n)
      body(&account, &record)
    }}}}
    (account.equityColumn, account.cashColumn, account.sharesRecord, account.priceRecord) = (equity, cash, shares, prices)
  }
}

/// The record of a sweep's run of one asset: each close goes straight into
/// the running marks and the day-end equities, in the order and with the
/// values `SummaryAccumulator.add(_:bars:)` reads from a run's columns, so the
/// statistics made of them are the same bit for bit.
@usableFromInline
struct SummaryRecord: BarRecord {
  @usableFromInline var marks = EquityMarks()
  /// The equity at the last bar of each day (storage the caller lends for the loop, emptied).
  @usableFromInline var dayEnds: [Double] = []
  /// The date of each bar of the timeline (days since 1970).
  @usableFromInline let day: UnsafeBufferPointer<Int32>
  /// The last bar of the range: its equity waits for the END_OF_DATA close's commission.
  @usableFromInline let last: Int
  @usableFromInline var lastEquity = 0.0, lastHeld = false

  @inlinable
  init(day: UnsafeBufferPointer<Int32>, last: Int) {
    self.day = day
    self.last = last
  }

  @inlinable @inline(__always)
  mutating func record(_ t: Int, _ account: inout Account) {
    let held = account.shares[0] != 0
    guard t != last else {
      (lastEquity, lastHeld) = (account.markedValue, held)
      return
    }
    marks.mark(account.markedValue, held: held, day: day[t], dayEnd: day[t + 1] != day[t], dayEnds: &dayEnds)
  }

  @inlinable
  mutating func finish(lastBarLess fee: Double) {
    marks.mark(lastEquity - fee, held: lastHeld, day: day[last], dayEnd: true, dayEnds: &dayEnds)
  }
}
