/// A video's playing time as a gallery tile shows it: `0:03`, `12:05`, `1:02:09`.
enum PlayingTime {
    /// The text for `milliseconds` of playing time, rounded to the second.
    static func text(milliseconds: Int) -> String {
        let seconds = max(0, (milliseconds + 500) / 1000)
        let (hours, minutes, rest) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        let two = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(rest))" : "\(minutes):\(two(rest))"
    }
}
