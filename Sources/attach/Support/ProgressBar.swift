import Foundation
import Synchronization

/// A one-line progress bar on standard error, drawn only when it is a terminal.
///
/// Safe to update from any thread; redraws at most ten times a second.
final class ProgressBar: Sendable {
    private struct State {
        var done: Int64 = 0
        var itemsDone = 0
        var label = ""
        var lastDraw = Date.distantPast
    }

    private let total: Int64
    private let items: Int
    private let enabled: Bool
    private let state = Mutex(State())

    /// A bar for `items` items totalling `total` bytes; silent unless stderr is a terminal.
    init(total: Int64, items: Int) {
        self.total = max(total, 1)
        self.items = items
        self.enabled = Console.isInteractive
    }

    /// Sets the bytes done so far within the current item run and the label shown.
    func update(done: Int64, itemsDone: Int, label: String) {
        guard enabled else { return }
        let line: String? = state.withLock { state in
            state.done = done
            state.itemsDone = itemsDone
            state.label = label
            let now = Date()
            guard now.timeIntervalSince(state.lastDraw) >= 0.1 || itemsDone == items else { return nil }
            state.lastDraw = now
            return render(state)
        }
        if let line { FileHandle.standardError.write(Data(line.utf8)) }
    }

    /// Clears the bar so the summary starts on a clean line.
    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }

    private func render(_ state: State) -> String {
        let width = 30
        let fraction = min(1, Double(state.done) / Double(total))
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let label = state.label.count > 30 ? "…" + state.label.suffix(29) : state.label
        return "\r\u{1B}[2K\(bar) \(Int(fraction * 100))%  \(state.itemsDone)/\(items)  "
            + "\(Formatting.bytes(state.done))/\(Formatting.bytes(total))  \(label)"
    }
}
