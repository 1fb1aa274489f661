#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clinux_spawn.h"

// What the child writes to the report pipe before it execs: a stage and an errno. Nothing
// arrives when exec succeeds (the pipe is close-on-exec).
struct child_report {
    int stage;
    int error;
};

// Between fork and exec only async-signal-safe calls: raw syscalls, no malloc, no locks.
static void child_fail(int report_fd, int stage) {
    struct child_report report = { stage, errno };
    ssize_t ignored = write(report_fd, &report, sizeof report);
    (void)ignored;
    _exit(127);
}

// Sets soft and hard limit to `value`; for CPU time the hard limit is a second later, so the
// program first gets SIGXCPU (which ffmpeg handles by stopping) and SIGKILL only after that.
static int set_limit(int resource, unsigned long long value) {
    if (value == 0) return 0;
    struct rlimit limit = { (rlim_t)value, (rlim_t)(resource == RLIMIT_CPU ? value + 1 : value) };
    return setrlimit(resource, &limit);
}

static void close_from(int lowest, int keep) {
#ifdef SYS_close_range
    if (keep < lowest) {
        if (syscall(SYS_close_range, (unsigned)lowest, ~0U, 0) == 0) return;
    } else {
        if ((keep <= lowest || syscall(SYS_close_range, (unsigned)lowest, (unsigned)(keep - 1), 0) == 0)
            && syscall(SYS_close_range, (unsigned)(keep + 1), ~0U, 0) == 0) return;
    }
#endif
    long most = sysconf(_SC_OPEN_MAX);
    if (most < 0 || most > 65536) most = 65536;
    for (int fd = lowest; fd < most; fd++) {
        if (fd != keep) close(fd);
    }
}

// Makes `from` the child's descriptor `to`, open across exec.
static int move_to(int from, int to) {
    if (from == to) {
        int flags = fcntl(to, F_GETFD);
        return flags < 0 ? -1 : fcntl(to, F_SETFD, flags & ~FD_CLOEXEC);
    }
    return dup2(from, to) < 0 ? -1 : 0;
}

int clinux_spawn_limited(const char *path, char *const argv[], char *const envp[],
                         int stdin_fd, int stdout_fd, int stderr_fd,
                         const clinux_child_limits *limits, int *network_isolated) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return -1;
    int isolated[2];
    if (pipe2(isolated, O_CLOEXEC) != 0) {
        close(report[0]);
        close(report[1]);
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int saved = errno;
        close(report[0]); close(report[1]); close(isolated[0]); close(isolated[1]);
        errno = saved;
        return -1;
    }
    if (pid == 0) {
        close(report[0]);
        close(isolated[0]);
        // Die with the parent; if it died before this line, go now.
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) child_fail(report[1], 1);
        if (getppid() != parent) _exit(127);
        if (setsid() < 0) child_fail(report[1], 2);
        // Signals the parent ignores or blocks stay that way across exec otherwise.
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        struct sigaction default_action;
        memset(&default_action, 0, sizeof default_action);
        default_action.sa_handler = SIG_DFL;
        for (int signal_number = 1; signal_number < NSIG; signal_number++) {
            if (signal_number != SIGKILL && signal_number != SIGSTOP) sigaction(signal_number, &default_action, NULL);
        }
        // A write past RLIMIT_FSIZE fails with EFBIG instead of killing the program: the limit
        // holds either way, and a helper whose library writes a cache on the side (fontconfig
        // rebuilding a stale system cache under pdftoppm) goes on without it instead of dying.
        struct sigaction ignore_action;
        memset(&ignore_action, 0, sizeof ignore_action);
        ignore_action.sa_handler = SIG_IGN;
        sigaction(SIGXFSZ, &ignore_action, NULL);
        char no_network = 0;
        if (limits->isolate_network) {
            if (unshare(CLONE_NEWNET) == 0 || unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0) no_network = 1;
        }
        ssize_t ignored = write(isolated[1], &no_network, 1);
        (void)ignored;
        close(isolated[1]);

        int null_fd = -1;
        if (stdin_fd < 0 || stdout_fd < 0 || stderr_fd < 0) {
            null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
            if (null_fd < 0) child_fail(report[1], 3);
        }
        // Descriptors 0...2 may be ones we are about to move: copy them above 2 first.
        int sources[3] = { stdin_fd < 0 ? null_fd : stdin_fd, stdout_fd < 0 ? null_fd : stdout_fd,
                           stderr_fd < 0 ? null_fd : stderr_fd };
        for (int index = 0; index < 3; index++) {
            if (sources[index] <= 2 && sources[index] != index) {
                int copy = fcntl(sources[index], F_DUPFD_CLOEXEC, 3);
                if (copy < 0) child_fail(report[1], 4);
                sources[index] = copy;
            }
        }
        for (int index = 0; index < 3; index++) {
            if (move_to(sources[index], index) != 0) child_fail(report[1], 5);
        }
        close_from(3, report[1]);

        if (set_limit(RLIMIT_AS, limits->address_space_bytes) != 0) child_fail(report[1], 6);
        if (set_limit(RLIMIT_CPU, limits->cpu_seconds) != 0) child_fail(report[1], 7);
        if (set_limit(RLIMIT_FSIZE, limits->file_size_bytes) != 0) child_fail(report[1], 8);
        if (set_limit(RLIMIT_NOFILE, limits->open_files) != 0) child_fail(report[1], 9);
        // No core files of a crashed decoder, and no new privileges through exec.
        struct rlimit no_core = { 0, 0 };
        setrlimit(RLIMIT_CORE, &no_core);
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) child_fail(report[1], 10);

        execve(path, argv, envp);
        child_fail(report[1], 11);
    }
    close(report[1]);
    close(isolated[1]);
    char no_network = 0;
    ssize_t got;
    do { got = read(isolated[0], &no_network, 1); } while (got < 0 && errno == EINTR);
    close(isolated[0]);
    if (network_isolated) *network_isolated = got == 1 && no_network;

    struct child_report failure;
    ssize_t count;
    do { count = read(report[0], &failure, sizeof failure); } while (count < 0 && errno == EINTR);
    close(report[0]);
    if (count == (ssize_t)sizeof failure) {
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        errno = failure.error;
        return -1;
    }
    return pid;
}

int clinux_pidfd_open(int pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}
