import Foundation
import Testing
import TestSupport

/// Every `attach` command but `serve` allocates from glibc's one main heap
/// (`ProcessHeap.useOneHeap()`, issue 34: a gallery process within 60 MB). glibc makes each
/// further heap ("arena") by reserving 64 MiB of address space, or 128 MiB to align it, with one
/// `mmap` (`PROT_NONE`, `MAP_NORESERVE`); `strace` sees every such call, from every thread.
@Suite("One heap for a command's threads", .timeLimit(.minutes(3)))
struct ProcessHeapTests {
    /// The heaps glibc made while a traced `attach ARGUMENTS` ran, with `environment` set.
    static func heapsMade(_ arguments: [String], environment: [String], store: URL,
                          directory: TemporaryDirectory) async throws -> (outcome: ChildProcess.Outcome, heaps: Int) {
        let trace = directory.appending("mmap-\(UUID().uuidString).txt").path(percentEncoded: false)
        let outcome = try await Attach.run(
            through: ["/usr/bin/env"] + environment + ["/usr/bin/strace", "-f", "-o", trace, "-e", "trace=mmap"], arguments, store: store)
        let heaps = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { line in
            line.contains("PROT_NONE") && line.contains("MAP_NORESERVE")
                && (line.contains(", 67108864, ") || line.contains(", 134217728, "))
        }
        return (outcome, heaps.count)
    }

    @Test("making thumbnails on several threads adds no heap to the main one; MALLOC_ARENA_MAX, when set, still decides")
    func commandsAllocateFromOneHeap() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "strace is missing: run `make test` (scripts/install-test-deps.sh)")
        let directory = try TemporaryDirectory("oneheap")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let photos = try Corpus.files(in: "fifty").prefix(6).map { $0.path(percentEncoded: false) }
        let imported = try await Attach.run(["import", "--no-thumbnails", "--new-note", "six"] + photos, store: store)
        #expect(imported.exitCode == 0, "\(imported.stderr)")

        // Two sizes, so each run renders its six thumbnails afresh, on the render threads.
        let (oneHeap, made) = try await Self.heapsMade(["thumbs", "--size", "200"], environment: [], store: store, directory: directory)
        #expect(oneHeap.exitCode == 0, "\(oneHeap.stderr.suffix(500))")
        #expect(made == 0, "attach thumbs made \(made) heaps besides the main one")

        let (perThread, madeByChoice) = try await Self.heapsMade(["thumbs", "--size", "300"], environment: ["MALLOC_ARENA_MAX=8"],
                                                                 store: store, directory: directory)
        #expect(perThread.exitCode == 0, "\(perThread.stderr.suffix(500))")
        #expect(madeByChoice >= 1, "with MALLOC_ARENA_MAX=8 the threads shared the main heap: the trace sees no heap being made")
    }
}
