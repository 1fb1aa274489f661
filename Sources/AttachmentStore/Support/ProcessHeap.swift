import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// How the process's memory allocator is set up: one decision, made at a program's start, for
/// the programs that open a store (`attach`'s commands, `attach-bench`, an app showing a gallery).
public enum ProcessHeap {
    /// Makes every thread allocate from glibc's one main heap, unless `MALLOC_ARENA_MAX` in the
    /// environment says otherwise (then that setting stands). Call it first thing in `main`,
    /// before the process has started many threads: heaps made before the call are kept and used.
    ///
    /// glibc gives each thread that allocates a heap of its own ("arena"), up to eight per core,
    /// and a heap keeps the memory it was once given. A store's process runs about twenty-five
    /// threads (the blocking pool, the catalog readers, the render slots, libvips' workers,
    /// Swift's pools); while a gallery's thumbnails were made, eight heaps held about 2 MB each
    /// and the process peaked at 63 MB; with one heap, 58 MB (BENCHMARKS.md, storage). Threads
    /// sharing a heap could wait for one another's allocations, which glibc's per-thread caches
    /// of small blocks mostly avoid: making 50 thumbnails and a first sync of 30,000 changes took
    /// the same time and CPU either way. `attach serve` does not call it: under `wrk` its CPU
    /// time per request was up to a fifth higher with one heap.
    public static func useOneHeap() {
        #if canImport(Glibc)
        guard getenv("MALLOC_ARENA_MAX") == nil else { return }
        _ = clinux_set_malloc_arena_max(1)
        #endif
    }
}
