#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include "clinux.h"

int clinux_syncfs(int fd) { return syncfs(fd); }

int clinux_start_writeback(int fd, long long offset, long long nbytes) {
    return sync_file_range(fd, (off_t)offset, (off_t)nbytes, SYNC_FILE_RANGE_WRITE);
}

int clinux_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int clinux_set_malloc_arena_max(int arenas) { return mallopt(M_ARENA_MAX, arenas); }
