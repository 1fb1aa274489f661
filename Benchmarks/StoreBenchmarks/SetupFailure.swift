/// Why a benchmark's setup could not prepare what it measures; the message says what to do.
struct SetupFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = "StoreBenchmarks: " + description
    }
}
