/* The release library links libdispatch statically (-static-stdlib) and
 * with `--wrap=open` (Makefile, RELEASE_FLAGS), so that libdispatch's calls
 * of open() come here.
 *
 * libdispatch's worker monitor, a timer of its own thread, looks every
 * second while a concurrent queue's pool has work pending at each worker's
 * /proc/<tid>/stat, and stops the process (SIGILL, "workq: registered worker
 * exited prematurely") when that open() fails: with no descriptor left
 * (EMFILE, ENFILE) the whole process died. A descriptor number that is not
 * -1 and not open makes its read() fail, which it takes as a worker it
 * could not read (not counted as running: it may start another worker); so
 * that case returns -2 here, and every other open() is the system's.
 *
 * The debug and sanitizer builds link libdispatch as a shared library:
 * there nothing is wrapped, and this function is never called. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/types.h>

int __wrap_open(const char *path, int flags, ...);

/* A path of the form /proc/<digits>/stat: a worker's status file. */
static int sk__is_worker_status(const char *path) {
    static const char prefix[] = "/proc/";
    static const char suffix[] = "/stat";
    if (path == NULL || strncmp(path, prefix, sizeof prefix - 1) != 0) {
        return 0;
    }
    const char *p = path + sizeof prefix - 1;
    if (*p < '0' || *p > '9') {
        return 0;
    }
    while (*p >= '0' && *p <= '9') {
        p++;
    }
    return strcmp(p, suffix) == 0;
}

int __wrap_open(const char *path, int flags, ...) {
    mode_t mode = 0;
    if ((flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE) {
        va_list args;
        va_start(args, flags);
        mode = (mode_t)va_arg(args, unsigned int);
        va_end(args);
    }
    /* openat is not wrapped: the system's open(). */
    int fd = openat(AT_FDCWD, path, flags, mode);
    if (fd == -1 && (errno == EMFILE || errno == ENFILE) && sk__is_worker_status(path)) {
        return -2;
    }
    return fd;
}
