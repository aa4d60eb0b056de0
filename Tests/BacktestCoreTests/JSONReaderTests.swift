import BacktestCore
import Foundation
import Testing

@Suite struct JSONReaderTests {
  @Test("values, escapes, surrogate pairs and places read as written")
  func values() throws {
    let text = "\u{FEFF}{\"a\": [1, -2.5e3, true, false, null],\n  \"s\": \"q\\\"\\\\\\/\\n\\u00e9\\ud83d\\ude00 ü\", \"o\": {}}"
    let root = try JSONReader.parse(Data(text.utf8), file: "x.json")
    let a = try #require(root["a"]?.array)
    #expect(a.map(\.typeDescription) == ["a number", "a number", "a boolean", "a boolean", "null"])
    #expect(a[1].number == -2500 && a[0].location == SourceLocation(file: "x.json", line: 1, column: 8))
    #expect(root["s"]?.string == "q\"\\/\né😀 ü")
    #expect(root["s"]?.location == SourceLocation(file: "x.json", line: 2, column: 8))
    #expect(root["s"]?.offset == 48)  // the byte order mark counts: 3 + 37 + 1 + 7
    #expect(root["o"]?.members?.isEmpty == true && root["missing"] == nil)
    // Written back, the document means the same to another reader.
    let back = try JSONSerialization.jsonObject(with: Data(root.value.rendered().utf8)) as! [String: Any]
    #expect((back["a"] as! [Any]).count == 5 && back["s"] as? String == "q\"\\/\né😀 ü")
  }

  @Test("a malformed document names the byte offset, line and column, and what was expected", arguments: [
    ("{\"a\": [1, 2,, 3]}", "x.json:1:13: error: malformed JSON at byte 12: expected a value (an object, a list, a string, a number, true, false or null), found ','"),
    ("{\"data\": [{\"date\": \"01-01-2024\"", "x.json:1:32: error: malformed JSON at byte 31: expected ',' or '}' after a member, found the end of the data"),
    ("<html>oops</html>", "x.json:1:1: error: malformed JSON at byte 0: expected a value (an object, a list, a string, a number, true, false or null), found '<'"),
    ("{\"a\":\n tru}", "x.json:2:5: error: malformed JSON at byte 10: expected 'true', found '}'"),
    ("[01]", "x.json:1:3: error: malformed JSON at byte 2: expected ',' or ']' after an item, found '1'"),
    ("{\"a\" 1}", "x.json:1:6: error: malformed JSON at byte 5: expected ':' after the member name, found '1'"),
    ("\"tab\there\"", "x.json:1:5: error: malformed JSON at byte 4: expected '\"' to close the string before a control character (write \\n, \\t or \\u00XX), found byte 0x9"),
    ("[1] [2]", "x.json:1:5: error: malformed JSON at byte 4: expected the end of the document after the top-level value, found '['"),
    ("", "x.json:1:1: error: malformed JSON at byte 0: expected a value, found the end of the data"),
  ])
  func malformed(_ text: String, _ message: String) {
    #expect(throws: (any Error).self) { try JSONReader.parse(Data(text.utf8), file: "x.json") }
    do { _ = try JSONReader.parse(Data(text.utf8), file: "x.json") } catch { #expect("\(error)" == message) }
  }

  @Test("hostile nesting is refused, not a stack overflow")
  func nesting() {
    let deep = String(repeating: "[", count: 100_000)
    do {
      _ = try JSONReader.parse(Data(deep.utf8), file: "x.json")
      Issue.record("accepted")
    } catch {
      #expect("\(error)" == "x.json:1:513: error: malformed JSON at byte 512: nesting deeper than 512 levels; expected a flatter document, found '['")
    }
  }
}
