// Linux calls that Swift's Glibc module leaves out (they need _GNU_SOURCE), one wrapper each.
#ifndef ATTACHMENTSTORE_CLINUX_H
#define ATTACHMENTSTORE_CLINUX_H

/// syncfs(2): flushes every change of the filesystem holding `fd` to stable storage.
/// Returns 0, or -1 with errno set.
int clinux_syncfs(int fd);

#endif
