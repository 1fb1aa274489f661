// Linux calls that Swift's Glibc module leaves out (they need _GNU_SOURCE), one wrapper each.
#ifndef ATTACHMENTSTORE_CLINUX_H
#define ATTACHMENTSTORE_CLINUX_H

/// syncfs(2): flushes every change of the filesystem holding `fd` to stable storage.
/// Returns 0, or -1 with errno set.
int clinux_syncfs(int fd);

/// sync_file_range(2) with SYNC_FILE_RANGE_WRITE: starts writing back the dirty pages of
/// `nbytes` bytes of `fd` from `offset` (0: to the end of the file) without waiting for them.
/// It makes nothing durable (a later fsync does); it only lets the disk start early.
/// Returns 0, or -1 with errno set.
int clinux_start_writeback(int fd, long long offset, long long nbytes);

/// pipe2(2) with O_CLOEXEC: a pipe whose ends are closed in any program this process execs.
/// Returns 0, or -1 with errno set.
int clinux_pipe_cloexec(int fds[2]);

/// mallopt(3) with M_ARENA_MAX: glibc makes at most `arenas` heaps for the process's threads
/// (counting its main heap). Takes effect for heaps made afterwards: call it before threads start.
/// Returns 1 on success, 0 on failure.
int clinux_set_malloc_arena_max(int arenas);

#include "clinux_spawn.h"

#endif
