// peak-rss OUTPUT PROGRAM [ARGS...]
//
// Runs PROGRAM, waits for it, writes its peak resident memory in bytes (wait4's ru_maxrss)
// to OUTPUT, and exits with PROGRAM's status. Tests measure a child through this small
// process because Linux carries the spawning process's RSS into a child's ru_maxrss across
// exec: a large test runner would otherwise inflate every measurement.
#if canImport(Glibc)
import Glibc
#endif

/// Writes a message to standard error.
func complain(_ message: String) {
    _ = message.withCString { write(2, $0, strlen($0)) }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    complain("usage: peak-rss OUTPUT PROGRAM [ARGS...]\n")
    exit(64)
}
let argv = arguments.dropFirst(2).map { strdup($0) } + [nil]
var child: pid_t = 0
let spawned = posix_spawn(&child, arguments[2], nil, nil, argv, environ)
guard spawned == 0 else {
    complain("peak-rss: cannot start \(arguments[2]): \(String(cString: strerror(spawned)))\n")
    exit(127)
}
var status: Int32 = 0
var usage = rusage()
while wait4(child, &status, 0, &usage) < 0 && errno == EINTR {}
if let output = fopen(arguments[1], "w") {
    fputs("\(Int(usage.ru_maxrss) * 1024)\n", output)
    fclose(output)
}
let signalled = status & 0x7F
exit(signalled == 0 ? (status >> 8) & 0xFF : 128 + signalled)
