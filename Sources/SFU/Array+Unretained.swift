extension Array where Element: AnyObject {
    /// Calls `body` with each element in turn, neither retained nor
    /// released: the array keeps every element alive, and the caller holds
    /// the array (a local copy) for the whole loop. `for element in array`
    /// retained and released each one, a pair per forwarded copy in the
    /// fan-out (counted with uprobes, docs/README.md, session 37).
    @inline(__always)
    func forEachUnretained(_ body: (Element) -> Void) {
        withUnsafeBufferPointer { elements in
            for index in elements.indices {
                // Sound: `elements` holds a strong reference to each element
                // until the loop ends.
                Unmanaged.passUnretained(elements[index])._withUnsafeGuaranteedRef(body)
            }
        }
    }
}
