import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for tests: answers each request from a
/// script and records the request lines. One connection at a time, `Connection: close`.
final class LocalHTTPServer: @unchecked Sendable {
  struct Response { var status: Int; var body: String; var headers: [String: String] = [:] }

  private let lock = NSLock()
  private var recorded: [String] = []
  private var socketFD: Int32 = -1
  private(set) var port: UInt16 = 0
  private let respond: @Sendable (_ path: String, _ index: Int) -> Response

  init(respond: @escaping @Sendable (_ path: String, _ index: Int) -> Response) throws {
    self.respond = respond
    socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var yes: Int32 = 1
    setsockopt(socketFD, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0, listen(socketFD, 16) == 0 else { throw NSError(domain: "LocalHTTPServer", code: 1) }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) }
    }
    port = UInt16(bigEndian: address.sin_port)
    let thread = Thread { [weak self] in self?.serve() }
    thread.start()
  }

  var baseURL: String { "http://127.0.0.1:\(port)" }
  var requests: [String] { lock.lock(); defer { lock.unlock() }; return recorded }

  func stop() {
    shutdown(socketFD, Int32(SHUT_RDWR))
    close(socketFD)
  }

  private func serve() {
    while true {
      let client = accept(socketFD, nil, nil)
      if client < 0 { return }
      var request = [UInt8]()
      var buffer = [UInt8](repeating: 0, count: 4096)
      while !request.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)) {
        let n = read(client, &buffer, buffer.count)
        if n <= 0 { break }
        request += buffer[0..<n]
      }
      let line = String(decoding: request, as: UTF8.self).split(separator: "\r\n").first.map(String.init) ?? ""
      let path = line.split(separator: " ").dropFirst().first.map(String.init) ?? ""
      lock.lock()
      recorded.append(path)
      let index = recorded.count - 1
      lock.unlock()
      let r = respond(path, index)
      var head = "HTTP/1.1 \(r.status) X\r\nContent-Type: application/json\r\nContent-Length: \(r.body.utf8.count)\r\nConnection: close\r\n"
      for (k, v) in r.headers { head += "\(k): \(v)\r\n" }
      let bytes = Array((head + "\r\n" + r.body).utf8)
      _ = bytes.withUnsafeBufferPointer { write(client, $0.baseAddress, $0.count) }
      close(client)
    }
  }
}
