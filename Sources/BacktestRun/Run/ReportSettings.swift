import BacktestCore
import Foundation

/// The report formats a run can write.
package enum ReportFormat: String, Sendable, CaseIterable {
  case csv, json, markdown, html
}

/// Where reports go and in which formats (`report:` section).
package struct ReportSettings: Sendable {
  package var out: String
  package var formats: [ReportFormat]

  package init(out: String, formats: [ReportFormat]) {
    self.out = out
    self.formats = formats
  }
}
