// Starting a helper program (ffmpeg, ffprobe, pdftoppm) with limits set in the child before it
// runs. swift-subprocess 1.0 has no hook between fork and exec on Linux, and posix_spawn cannot
// set resource limits or namespaces, so this one call does it in C.
#ifndef ATTACHMENTSTORE_CLINUX_SPAWN_H
#define ATTACHMENTSTORE_CLINUX_SPAWN_H

/// Limits applied in the child, after fork and before exec. A value of 0 leaves that limit as
/// the parent has it.
typedef struct {
    /// RLIMIT_AS: bytes of address space.
    unsigned long long address_space_bytes;
    /// RLIMIT_CPU: seconds of CPU time; the kernel sends SIGXCPU, then SIGKILL a second later.
    unsigned long long cpu_seconds;
    /// RLIMIT_FSIZE: the largest file the child may write, in bytes.
    unsigned long long file_size_bytes;
    /// RLIMIT_NOFILE: open descriptors.
    unsigned long long open_files;
    /// Non-zero: the child gets a network namespace of its own (loopback only, down), via a
    /// user namespace when it is not privileged. When the kernel refuses, the child runs
    /// anyway and `*network_isolated` says so.
    int isolate_network;
} clinux_child_limits;

/// Starts `path` with `argv` and `envp` (NULL-terminated) in a session of its own (its process
/// group id is its pid, so the whole group can be killed), with `stdin_fd`, `stdout_fd` and
/// `stderr_fd` as its 0, 1 and 2 (-1: /dev/null), every other descriptor closed, the limits
/// set, and SIGKILL sent to it if the calling thread's process dies.
///
/// The child reports a failure of its set-up or of exec through a close-on-exec pipe, so a
/// program that cannot start is an error here rather than an exit status 127.
/// Returns the child's pid; -1 with errno set (the child's errno when it could not start).
/// `*network_isolated` is set to 1 when the child has no network, 0 otherwise.
int clinux_spawn_limited(const char *path, char *const argv[], char *const envp[],
                         int stdin_fd, int stdout_fd, int stderr_fd,
                         const clinux_child_limits *limits, int *network_isolated);

/// pidfd_open(2): a descriptor that polls readable once process `pid` has exited.
/// Returns it, or -1 with errno set (ENOSYS before Linux 5.3).
int clinux_pidfd_open(int pid);

#endif
