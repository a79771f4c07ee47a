/* harness.c - the runner of the C, ffi and C++ suites, and what their
 * assertions call; see harness.h.
 *
 * The runner collects the tests (harness.h's ELF sections), sorts them by
 * suite and name, and forks a child for each selected test (for each
 * element of a parameterized one), at most --jobs at a time. It waits for
 * them with SIGCHLD blocked, in sigtimedwait() until the nearest deadline,
 * and kills (SIGKILL) a test still running at its timeout. The children
 * print their own failures; the runner tells each test's end from its
 * status: 0 passed, SKIP_STATUS skipped, 1 failed (if it printed a
 * failure: a shared flag says so), anything else crashed. It never calls
 * the library and starts no thread, so that each child starts as a fresh
 * process would (a child forked from a process with threads would not),
 * but for what the library's loading did (run_child). */
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A skipped test's exit status (automake's). */
#define SKIP_STATUS 77

/* The linker's bounds of the sections the test macros fill (weak: a
 * program without suites or tests has no such section). */
extern const struct sk_h_test *__start_sk_h_tests[] __attribute__((weak));
extern const struct sk_h_test *__stop_sk_h_tests[] __attribute__((weak));
extern const struct sk_h_suite *__start_sk_h_suites[] __attribute__((weak));
extern const struct sk_h_suite *__stop_sk_h_suites[] __attribute__((weak));

/* One run of a test: a plain test, or one element of a parameterized one. */
struct run {
    const struct sk_h_test *test;
    void *param;  /* the element, for a parameterized test */
    long index;   /* its index; -1 for a plain test */
    double timeout;
    int signal;
    pid_t pid;
    double started;
    int timed_out;
};

static struct run *runs;
static size_t run_count;
/* Shared with the children (MAP_SHARED): reported[i] is set when run i
 * printed a failed assertion or expectation. */
static int *reported;
/* In a child: its run; NULL in the runner. */
static const struct run *current;
static int expectation_failed;
static int verbose, quiet;
/* The selected tests, and the runs under way (globals: LeakSanitizer, at
 * a child's exit, finds what they point to). */
static const struct sk_h_test **tests;
static struct run **running;

/* ------------------------------------------------------------------------ */
/* What the tests call                                                       */
/* ------------------------------------------------------------------------ */

/* "suite::name", "suite::name[index]" for a parameterized test's run. */
static const char *name_of(const struct run *r, char *buffer, size_t size) {
    if (r == NULL) {
        snprintf(buffer, size, "(outside a test)");
    } else if (r->index >= 0) {
        snprintf(buffer, size, "%s::%s[%ld]", r->test->suite, r->test->name, r->index);
    } else {
        snprintf(buffer, size, "%s::%s", r->test->suite, r->test->name);
    }
    return buffer;
}

/* A line of a report, made in memory and written to stderr at once (one
 * write: the lines of the tests running side by side do not mix). */
struct line {
    FILE *out;
    char *text;
    size_t length;
};

static void line_open(struct line *l) {
    l->text = NULL;
    l->length = 0;
    l->out = open_memstream(&l->text, &l->length);
    if (l->out == NULL) {
        l->out = stderr;
    }
}

static void line_close(struct line *l) {
    fputc('\n', l->out);
    if (l->out != stderr) {
        fclose(l->out);
        fwrite(l->text, 1, l->length, stderr);
        free(l->text);
    }
    fflush(stderr);
}

/* Prints the `which`-th (from 1) of the comma-separated arguments in
 * `text`, an assertion's arguments as written: split where the
 * preprocessor split them, at the commas outside parentheses and
 * literals. */
static void print_operand(FILE *out, const char *text, int which) {
    int depth = 0, at = 1;
    const char *start = text;
    for (const char *c = text;; c++) {
        if (*c == '"' || *c == '\'') {
            char quote = *c;
            for (c++; *c != '\0' && *c != quote; c++) {
                if (*c == '\\' && c[1] != '\0') {
                    c++;
                }
            }
            if (*c == '\0') {
                break;
            }
        } else if (*c == '(') {
            depth++;
        } else if (*c == ')') {
            depth--;
        } else if ((*c == ',' && depth == 0) || *c == '\0') {
            if (at == which) {
                while (start < c && *start == ' ') {
                    start++;
                }
                fprintf(out, "%.*s", (int)(c - start), start);
                return;
            }
            if (*c == '\0') {
                break;
            }
            at++;
            start = c + 1;
        }
    }
    fputs("?", out);
}

static void print_string(FILE *out, const char *s) {
    if (s == NULL) {
        fputs("NULL", out);
    } else {
        fprintf(out, "\"%s\"", s);
    }
}

/* "[----] suite::name: file:line: Assertion failed: " and the assertion
 * (`shape`, its operands taken from `text`), if any. */
static void report_start(struct line *l, const char *file, int line, const char *shape, const char *text) {
    char name[512];
    line_open(l);
    fprintf(l->out, "[----] %s: %s:%d: Assertion failed", name_of(current, name, sizeof name), file, line);
    if (shape != NULL) {
        fputs(": ", l->out);
        for (const char *c = shape; *c != '\0'; c++) {
            if (*c >= 1 && *c <= 3) {
                print_operand(l->out, text, *c);
            } else {
                fputc(*c, l->out);
            }
        }
    }
}

/* The end of a failure's report: the message, if any; then what the
 * failure does to the test (fatal: its end, with status 1). */
static void report_end(struct line *l, int fatal, const char *format, va_list args) {
    if (format != NULL && format[0] != '\0') {
        fputs(": ", l->out);
        vfprintf(l->out, format, args);
    }
    line_close(l);
    if (current != NULL && reported != NULL) {
        __atomic_store_n(&reported[current - runs], 1, __ATOMIC_RELAXED);
    }
    if (fatal) {
        fflush(NULL);
        _exit(1);
    }
    __atomic_store_n(&expectation_failed, 1, __ATOMIC_RELAXED);
}

void sk_h_fail(const char *file, int line, int fatal, const char *shape, const char *text, const char *format, ...) {
    struct line l;
    va_list args;
    va_start(args, format);
    report_start(&l, file, line, shape, text);
    report_end(&l, fatal, format, args);
    va_end(args);
}

void sk_h_fail_str(const char *file, int line, int fatal, const char *shape, const char *text, const char *a,
                   const char *b, const char *format, ...) {
    struct line l;
    va_list args;
    va_start(args, format);
    report_start(&l, file, line, shape, text);
    fputs(" (", l.out);
    print_string(l.out, a);
    if (strstr(shape, "\2") != NULL) { /* two strings */
        fputs(" and ", l.out);
        print_string(l.out, b);
    }
    fputs(")", l.out);
    report_end(&l, fatal, format, args);
    va_end(args);
}

void sk_h_fail_now(const char *file, int line, const char *format, ...) {
    struct line l;
    va_list args;
    va_start(args, format);
    report_start(&l, file, line, NULL, NULL);
    report_end(&l, 1, format, args);
    va_end(args);
    _exit(1); /* not reached */
}

/* "[TAG] suite::name: message". */
static void report_line(const char *tag, const char *format, va_list args) {
    char name[512];
    struct line l;
    line_open(&l);
    fprintf(l.out, "%s %s: ", tag, name_of(current, name, sizeof name));
    vfprintf(l.out, format, args);
    line_close(&l);
}

void sk_h_skip(const char *format, ...) {
    if (!quiet) {
        va_list args;
        va_start(args, format);
        report_line("[SKIP]", format, args);
        va_end(args);
    }
    fflush(NULL);
    _exit(SKIP_STATUS);
}

void sk_h_log(const char *format, ...) {
    if (verbose) {
        va_list args;
        va_start(args, format);
        report_line("[----]", format, args);
        va_end(args);
    }
}

int sk_h_str_equal(const char *a, const char *b) {
    return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

int sk_h_within(double a, double b, double epsilon) {
    double d = a - b;
    return d <= epsilon && -d <= epsilon;
}

struct sk_h_params sk_h_make_params(size_t size, void *params, size_t length) {
    struct sk_h_params p;
    p.size = size;
    p.params = params;
    p.length = params == NULL ? 0 : length;
    return p;
}

/* ------------------------------------------------------------------------ */
/* The runner                                                                */
/* ------------------------------------------------------------------------ */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int by_suite_and_name(const void *a, const void *b) {
    const struct sk_h_test *x = *(const struct sk_h_test *const *)a, *y = *(const struct sk_h_test *const *)b;
    int c = strcmp(x->suite, y->suite);
    return c != 0 ? c : strcmp(x->name, y->name);
}

static const struct sk_h_options *suite_options(const char *suite) {
    for (const struct sk_h_suite **s = __start_sk_h_suites; s != NULL && s < __stop_sk_h_suites; s++) {
        if (*s != NULL && strcmp((*s)->name, suite) == 0) {
            return (*s)->options;
        }
    }
    return NULL;
}

static int selected(const struct sk_h_test *t, const char *filter) {
    if (filter == NULL) {
        return 1;
    }
    size_t length = strlen(t->suite) + strlen(t->name) + 2;
    char *path = malloc(length);
    if (path == NULL) {
        perror("malloc");
        exit(2);
    }
    snprintf(path, length, "%s/%s", t->suite, t->name);
    int match = fnmatch(filter, path, FNM_EXTMATCH) == 0;
    free(path);
    return match;
}

static void add_run(const struct sk_h_test *t, void *param, long index) {
    static size_t capacity;
    if (run_count == capacity) {
        capacity = capacity == 0 ? 256 : 2 * capacity;
        struct run *more = realloc(runs, capacity * sizeof *runs);
        if (more == NULL) {
            perror("realloc");
            exit(2);
        }
        runs = more;
    }
    const struct sk_h_options *suite = suite_options(t->suite);
    struct run *r = &runs[run_count++];
    memset(r, 0, sizeof *r);
    r->test = t;
    r->param = param;
    r->index = index;
    r->timeout = t->options->timeout > 0 ? t->options->timeout : suite != NULL ? suite->timeout : 0;
    r->signal = t->options->signal != 0 ? t->options->signal : suite != NULL ? suite->signal : 0;
}

static void usage(FILE *out, const char *program) {
    fprintf(out,
            "usage: %s [--jobs N] [--filter PATTERN] [--list] [--verbose] [--quiet] [--fail-fast] [--help]\n"
            "  -j N, --jobs N     run N tests at a time (default: the number of online processors)\n"
            "  --filter PATTERN   run the tests whose suite/name matches PATTERN, a shell pattern\n"
            "                     with extended forms (fnmatch's FNM_EXTMATCH: '@(a/x|b/*)', '!(a/*)')\n"
            "  -l, --list         print the selected tests' suite/name, one a line, and run none\n"
            "  --verbose          print each test's start and end, and cr_log_info's lines\n"
            "  -q, --quiet        print only failures (no skips, no synthesis)\n"
            "  --fail-fast        start no test after a failure (those running finish)\n"
            "Each test runs in a process forked from this one; the status is 0 when every test\n"
            "passed (or was skipped), 1 when any failed or crashed, 2 on a usage error or when\n"
            "no test is selected.\n",
            program);
}

static int parse_jobs(const char *text, long *jobs) {
    char *end = NULL;
    errno = 0;
    *jobs = strtol(text, &end, 10);
    return errno == 0 && end != text && *end == '\0' && *jobs >= 1 && *jobs <= 1024;
}

/* How run `r` ended, from its status: reported, and counted. */
struct tally {
    int passing, failing, crashing, skipped;
};

static void finish(struct run *r, int status, struct tally *tally) {
    char name[512];
    name_of(r, name, sizeof name);
    if (r->timed_out) {
        fprintf(stderr, "[FAIL] %s: timed out after %g s\n", name, r->timeout);
        tally->crashing++;
    } else if (WIFSIGNALED(status) && WTERMSIG(status) != r->signal) {
        fprintf(stderr, "[FAIL] %s: crashed: signal %d (%s)\n", name, WTERMSIG(status), strsignal(WTERMSIG(status)));
        tally->crashing++;
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == SKIP_STATUS) {
        tally->skipped++;
    } else if (WIFEXITED(status) && r->signal != 0) {
        fprintf(stderr, "[FAIL] %s: exited with status %d, but should have died of signal %d (%s)\n", name,
                WEXITSTATUS(status), r->signal, strsignal(r->signal));
        tally->failing++;
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 1 &&
               __atomic_load_n(&reported[r - runs], __ATOMIC_RELAXED)) {
        fprintf(stderr, "[FAIL] %s\n", name);
        tally->failing++;
    } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        fprintf(stderr, "[FAIL] %s: crashed: exit status %d\n", name, WEXITSTATUS(status));
        tally->crashing++;
    } else {
        tally->passing++;
        if (verbose) {
            fprintf(stderr, "[PASS] %s: (%.2fs)\n", name, now() - r->started);
        }
    }
}

/* The test's thread, in the child: runs the test and ends the process
 * (exit(): the exit handlers, LeakSanitizer's check among them, run here). */
static void *test_thread(void *run) {
    const struct run *r = run;
    if (r->test->run_param != NULL) {
        r->test->run_param(r->param);
    } else {
        r->test->run();
    }
    if (__atomic_load_n(&expectation_failed, __ATOMIC_RELAXED)) {
        fflush(NULL);
        _exit(1);
    }
    exit(0);
}

/* In the child: runs `r` on a thread of its own, and ends the process.
 *
 * Not on the child's main thread. The Swift runtime, which the library
 * brings into the runner (and starts there, when it is loaded), keeps each
 * thread's id in a thread-local variable for its locks, futexes whose owner
 * the kernel knows by that id (FUTEX_LOCK_PI); the child's main thread is a
 * copy of the runner's, with the runner's id in the locks it takes: once
 * another thread waits for one, the kernel refuses both the wait and the
 * unlock (EPERM: the owner is no thread of the process), and they retry
 * for ever (two tests of the C suite hung so under TSan, in swift_once).
 * The release library corrects the id at a fork (shims.c), but the
 * sanitizer builds run over the shared runtime, which it cannot reach. A
 * new thread finds its own id. The main thread then blocks every signal
 * (those sent to the process go to the test's threads) and waits. */
static void run_child(const struct run *r, const sigset_t *mask) {
    /* Only 0, 1 and 2 stay open: tests count their descriptors (limits,
     * queues), and the runner's surroundings (make's, a shell's) may have
     * left others, even above the limit a test sets. */
    close_range(3, ~0U, 0);
    /* Killed with the runner (a runner killed at a timeout of its own
     * leaves no test running). */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    current = r;
    /* The main thread's stack limit, as a thread's size (8 MiB if none). */
    struct rlimit limit;
    size_t stack = 8u << 20;
    if (getrlimit(RLIMIT_STACK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur >= (1u << 20)) {
        stack = (size_t)limit.rlim_cur;
    }
    pthread_attr_t attributes;
    pthread_t thread;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, stack);
    sigprocmask(SIG_SETMASK, mask, NULL);
    int error = pthread_create(&thread, &attributes, test_thread, (void *)r);
    if (error != 0) {
        fprintf(stderr, "[----] cannot start the test's thread: %s\n", strerror(error));
        _exit(1);
    }
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, NULL);
    pthread_join(thread, NULL);
    fprintf(stderr, "[----] the test's thread ended without the test's end\n");
    _exit(1);
}

int main(int argc, char **argv) {
    long jobs = sysconf(_SC_NPROCESSORS_ONLN);
    const char *filter = NULL;
    int list = 0, fail_fast = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *jobs_text = NULL;
        if (strcmp(a, "--filter") == 0 && i + 1 < argc) {
            filter = argv[++i];
        } else if (strncmp(a, "--filter=", 9) == 0) {
            filter = a + 9;
        } else if ((strcmp(a, "--jobs") == 0 || strcmp(a, "-j") == 0) && i + 1 < argc) {
            jobs_text = argv[++i];
        } else if (strncmp(a, "--jobs=", 7) == 0) {
            jobs_text = a + 7;
        } else if (strncmp(a, "-j", 2) == 0 && a[2] != '\0') {
            jobs_text = a + 2;
        } else if (strcmp(a, "--list") == 0 || strcmp(a, "-l") == 0) {
            list = 1;
        } else if (strcmp(a, "--verbose") == 0) {
            verbose = 1;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            quiet = 1;
        } else if (strcmp(a, "--fail-fast") == 0) {
            fail_fast = 1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout, argv[0]);
            return 0;
        } else {
            fprintf(stderr, "%s: unknown option, or one without its value: %s\n", argv[0], a);
            usage(stderr, argv[0]);
            return 2;
        }
        if (jobs_text != NULL && !parse_jobs(jobs_text, &jobs)) {
            fprintf(stderr, "%s: not a number of jobs (1 to 1024): %s\n", argv[0], jobs_text);
            return 2;
        }
    }
    if (jobs < 1) {
        jobs = 1;
    }
    if (quiet) {
        verbose = 0;
    }

    /* The tests, sorted; ASan does not pad globals in these sections (their
     * names are C identifiers), but an empty slot would be skipped. */
    size_t test_count = 0;
    size_t slots = __start_sk_h_tests == NULL ? 0 : (size_t)(__stop_sk_h_tests - __start_sk_h_tests);
    tests = malloc((slots + 1) * sizeof *tests);
    if (tests == NULL) {
        perror("malloc");
        return 2;
    }
    for (size_t i = 0; i < slots; i++) {
        if (__start_sk_h_tests[i] != NULL && selected(__start_sk_h_tests[i], filter)) {
            tests[test_count++] = __start_sk_h_tests[i];
        }
    }
    qsort(tests, test_count, sizeof *tests, by_suite_and_name);
    if (list) {
        for (size_t i = 0; i < test_count; i++) {
            printf("%s/%s\n", tests[i]->suite, tests[i]->name);
        }
        return 0;
    }
    for (size_t i = 0; i < test_count; i++) {
        if (tests[i]->params != NULL) {
            struct sk_h_params p = tests[i]->params();
            for (size_t j = 0; j < p.length; j++) {
                add_run(tests[i], (char *)p.params + j * p.size, (long)j);
            }
        } else {
            add_run(tests[i], NULL, -1);
        }
    }
    if (run_count == 0) {
        fprintf(stderr, "%s: no test %s\n", argv[0], filter != NULL ? "matches the filter" : "to run");
        return 2;
    }
    reported = mmap(NULL, run_count * sizeof *reported, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (reported == MAP_FAILED) {
        perror("mmap");
        return 2;
    }

    sigset_t child_ended, mask;
    sigemptyset(&child_ended);
    sigaddset(&child_ended, SIGCHLD);
    sigprocmask(SIG_BLOCK, &child_ended, &mask);
    running = calloc((size_t)jobs, sizeof *running);
    if (running == NULL) {
        perror("calloc");
        return 2;
    }
    struct tally tally = {0, 0, 0, 0};
    size_t next = 0, active = 0;
    while (active > 0 || (next < run_count && !(fail_fast && tally.failing + tally.crashing > 0))) {
        while (active < (size_t)jobs && next < run_count && !(fail_fast && tally.failing + tally.crashing > 0)) {
            struct run *r = &runs[next++];
            if (verbose) {
                char name[512];
                fprintf(stderr, "[RUN ] %s\n", name_of(r, name, sizeof name));
            }
            fflush(NULL);
            r->started = now();
            r->pid = fork();
            if (r->pid < 0) {
                perror("fork");
                return 2;
            }
            if (r->pid == 0) {
                run_child(r, &mask);
            }
            for (long j = 0; j < jobs; j++) {
                if (running[j] == NULL) {
                    running[j] = r;
                    break;
                }
            }
            active++;
        }
        /* Wait until a child ends or the nearest deadline. */
        double nearest = -1, t = now();
        for (long j = 0; j < jobs; j++) {
            struct run *r = running[j];
            if (r != NULL && r->timeout > 0 && !r->timed_out) {
                double deadline = r->started + r->timeout;
                if (deadline <= t) {
                    r->timed_out = 1;
                    kill(r->pid, SIGKILL);
                } else if (nearest < 0 || deadline < nearest) {
                    nearest = deadline;
                }
            }
        }
        if (nearest >= 0) {
            double wait = nearest - t;
            struct timespec until = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
            sigtimedwait(&child_ended, NULL, &until);
        } else {
            sigwaitinfo(&child_ended, NULL);
        }
        int status;
        pid_t pid;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
            for (long j = 0; j < jobs; j++) {
                if (running[j] != NULL && running[j]->pid == pid) {
                    finish(running[j], status, &tally);
                    running[j] = NULL;
                    active--;
                    break;
                }
            }
        }
    }
    if (!quiet) {
        fprintf(stderr, "[====] Synthesis: Tested: %d | Passing: %d | Failing: %d | Crashing: %d | Skipped: %d\n",
                tally.passing + tally.failing + tally.crashing, tally.passing, tally.failing, tally.crashing,
                tally.skipped);
    }
    if (next < run_count && !quiet) {
        fprintf(stderr, "[====] --fail-fast: %zu test(s) not run\n", run_count - next);
    }
    return tally.failing + tally.crashing > 0 ? 1 : 0;
}
