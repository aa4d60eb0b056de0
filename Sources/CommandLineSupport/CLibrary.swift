#if canImport(Glibc)
import Glibc

/// The C library's function `name` as `type` (a `@convention(c)` function
/// type), or `nil` when it has none: for the functions the Swift Glibc module
/// does not declare (those of `_GNU_SOURCE`, or newer than the module).
package func cLibraryFunction<F>(_ name: String, as type: F.Type) -> F? {
  dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: type) }
}
#endif
