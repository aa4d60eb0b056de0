@testable import BacktestCore
import Testing

@Suite struct ColumnStorageTests {
  @Test("an array made by writing every element holds what was written: none, one, and millions", arguments: [0, 1, 7, 3_000_000])
  func writingEvery(count: Int) {
    let column = ContiguousArray<Double>(count: count) { buffer in
      #expect(buffer.count == count)
      for i in buffer.indices { buffer[i] = Double(i) * 0.5 }
    }
    #expect(column.count == count)
    #expect(column.indices.allSatisfy { column[$0] == Double($0) * 0.5 })
  }
}
