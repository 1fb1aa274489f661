/// An error that reads as the text it was made with: a stand-in for a failure a real service
/// would throw, where a test needs its words and not its type.
public struct StubFailure: Error, CustomStringConvertible {
    /// The words.
    public let description: String

    /// A failure reading `description`.
    public init(_ description: String) {
        self.description = description
    }
}
