/* bench_nats.c - the NATS bridge against libnats itself, in one run, on a
 * nats-server it starts (127.0.0.1, free ports, JetStream in a folder under
 * $TMPDIR): `make bench-nats` (mk/nats.mk); issue 81's targets.
 *
 *   core  a plain libnats asynchronous subscriber counting N messages,
 *         against subject -> sk_nats_subject() signal -> a counting C
 *         observer (the payload shape, then the message shape); a publisher
 *         on another connection and thread sends N 16-byte messages as fast
 *         as it can, and the time is from its first publish to the N-th
 *         message counted (the subscriber is the bottleneck: its pending
 *         limits hold all N, so nothing is dropped as a slow consumer).
 *         Target: the bridge within 1.2 times libnats.
 *   js    libnats's own pull loop (natsSubscription_Fetch() of 256,
 *         natsMsg_Ack() of each) against sk_nats_js_consume() (capacity
 *         1,000, acknowledged after next) -> a counting C observer, each
 *         reading the same M messages of one stream through a durable
 *         consumer of its own (explicit acks, MaxAckPending 20,000); the
 *         time is from the subscription to the M-th message counted.
 *         Target: the bridge within 1.5 times libnats.
 *
 * Each round runs every variant once, in turn (a loaded machine weighs on
 * all alike); the table gives each variant's median over the rounds, in
 * ns per message, and the ratios of the medians. A clock, so never a gate:
 * it prints whether each ratio is within its target and exits 0; it exits
 * 1 only when something fails (the server, a connection, a lost message).
 *
 *   bench_nats [--messages N] [--js-messages M] [--reps R]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <signalkit_nats.h>

#define PAYLOAD_SIZE 16
#define JS_BATCH 256
#define JS_CAPACITY 1000
#define WAIT_SECONDS 120.0

static void die(const char *what, const char *detail) {
    fprintf(stderr, "bench_nats: %s%s%s\n", what, detail != NULL ? ": " : "", detail != NULL ? detail : "");
    exit(1);
}

static void check(natsStatus status, const char *what) {
    if (status != NATS_OK) {
        char detail[512];
        snprintf(detail, sizeof detail, "%s (%s)", natsStatus_GetText(status), nats_GetLastError(NULL));
        die(what, detail);
    }
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The server ------------------------------------------------------------ */

static pid_t server_pid;
static char server_dir[256];
static char server_url[64];

static int free_port(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = 0 };
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (fd < 0 || bind(fd, (struct sockaddr *)&address, sizeof address) != 0
        || getsockname(fd, (struct sockaddr *)&address, &length) != 0) {
        die("cannot find a free port", strerror(errno));
    }
    close(fd);
    return ntohs(address.sin_port);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void server_stop(void) {
    if (server_pid > 0) {
        kill(server_pid, SIGTERM);
        while (waitpid(server_pid, NULL, 0) < 0 && errno == EINTR) {
        }
        server_pid = 0;
    }
    if (server_dir[0] != '\0') {
        nftw(server_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        server_dir[0] = '\0';
    }
}

static void server_start(void) {
    const char *tmp = getenv("TMPDIR");
    snprintf(server_dir, sizeof server_dir, "%s/bench-nats-XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (mkdtemp(server_dir) == NULL) {
        die("mkdtemp", strerror(errno));
    }
    int port = free_port();
    char port_text[16], store[300], log[300];
    snprintf(port_text, sizeof port_text, "%d", port);
    snprintf(store, sizeof store, "%s/js", server_dir);
    snprintf(log, sizeof log, "%s/server.log", server_dir);
    snprintf(server_url, sizeof server_url, "nats://127.0.0.1:%d", port);
    const char *program = getenv("NATS_SERVER");
    if (program == NULL || program[0] == '\0') {
        program = access("/usr/sbin/nats-server", X_OK) == 0 ? "/usr/sbin/nats-server" : "nats-server";
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        die("fork", strerror(errno));
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) {
            _exit(127);
        }
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        execlp(program, program, "-a", "127.0.0.1", "-p", port_text, "-js", "-sd", store, "-l", log, (char *)NULL);
        _exit(127);
    }
    server_pid = pid;
    atexit(server_stop);
    double deadline = now_seconds() + WAIT_SECONDS;
    for (;;) {
        natsConnection *connection = NULL;
        if (natsConnection_ConnectTo(&connection, server_url) == NATS_OK) {
            natsConnection_Destroy(connection);
            return;
        }
        if (waitpid(pid, NULL, WNOHANG) == pid) {
            server_pid = 0;
            die("nats-server exited before accepting connections", program);
        }
        if (now_seconds() > deadline) {
            die("nats-server accepted no connection", server_url);
        }
        (void)poll(NULL, 0, 5);
    }
}

/* A connection whose subscriptions hold `max_pending` messages. */
static natsConnection *connect_with(int max_pending) {
    natsOptions *options = NULL;
    check(natsOptions_Create(&options), "natsOptions_Create");
    check(natsOptions_SetURL(options, server_url), "natsOptions_SetURL");
    if (max_pending > 0) {
        check(natsOptions_SetMaxPendingMsgs(options, max_pending), "natsOptions_SetMaxPendingMsgs");
    }
    natsConnection *connection = NULL;
    check(natsConnection_Connect(&connection, options), "connect");
    natsOptions_Destroy(options);
    return connection;
}

/* Counting ---------------------------------------------------------------- */

typedef struct counter {
    atomic_long count;
    long target;
    pthread_mutex_t mutex;
    pthread_cond_t reached;
    int done;
    double done_at;
} counter;

static void counter_reset(counter *c, long target) {
    atomic_store(&c->count, 0);
    c->target = target;
    c->done = 0;
}

static inline void counter_add(counter *c) {
    if (atomic_fetch_add_explicit(&c->count, 1, memory_order_relaxed) + 1 == c->target) {
        double at = now_seconds();
        pthread_mutex_lock(&c->mutex);
        c->done = 1;
        c->done_at = at;
        pthread_cond_broadcast(&c->reached);
        pthread_mutex_unlock(&c->mutex);
    }
}

/* Waits for the target; the time it was reached. */
static double counter_wait(counter *c, const char *what) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += (time_t)WAIT_SECONDS;
    pthread_mutex_lock(&c->mutex);
    int status = 0;
    while (!c->done && status == 0) {
        status = pthread_cond_timedwait(&c->reached, &c->mutex, &deadline);
    }
    int done = c->done;
    double at = c->done_at;
    pthread_mutex_unlock(&c->mutex);
    if (!done) {
        char detail[128];
        snprintf(detail, sizeof detail, "%ld of %ld messages within %g s", atomic_load(&c->count), c->target, WAIT_SECONDS);
        die(what, detail);
    }
    return at;
}

static counter counted = { .mutex = PTHREAD_MUTEX_INITIALIZER, .reached = PTHREAD_COND_INITIALIZER };

static void plain_on_message(natsConnection *connection, natsSubscription *subscription, natsMsg *message, void *closure) {
    (void)connection;
    (void)subscription;
    (void)closure;
    natsMsg_Destroy(message);
    counter_add(&counted);
}

static void observer_next(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
    counter_add(&counted);
}

static char observer_error_text[512];

static void observer_error(void *ctx, const sk_value *error) {
    (void)ctx;
    const char *text = "(not a string)";
    size_t length = 0;
    if (sk_value_get_string(error, &text, &length) != SK_OK) {
        text = "(not a string)";
    }
    snprintf(observer_error_text, sizeof observer_error_text, "%s", text);
    fprintf(stderr, "bench_nats: the signal failed: %s\n", text);
}

static const sk_observer counting_observer = { observer_next, observer_error, NULL, NULL, NULL };

/* Core NATS ----------------------------------------------------------------- */

typedef struct publisher {
    natsConnection *connection;
    const char *subject;
    long count;
} publisher;

static void *publish_all(void *arg) {
    publisher *p = arg;
    char payload[PAYLOAD_SIZE];
    memset(payload, 'x', sizeof payload);
    for (long i = 0; i < p->count; i++) {
        memcpy(payload, &i, sizeof i);
        check(natsConnection_Publish(p->connection, p->subject, payload, sizeof payload), "publish");
    }
    check(natsConnection_FlushTimeout(p->connection, (int64_t)(WAIT_SECONDS * 1000)), "flush");
    return NULL;
}

/* One run of the core workload: `variant` 0 libnats, 1 the bridge's payload
 * shape, 2 its message shape; ns per message. */
static double core_run(int variant, long count, int round) {
    natsConnection *subscriber_connection = connect_with((int)count + 1024);
    natsConnection *publisher_connection = connect_with(0);
    char subject[64];
    snprintf(subject, sizeof subject, "bench.core.%d.%d", round, variant);
    counter_reset(&counted, count);
    natsSubscription *subscription = NULL;
    sk_signal *signal = NULL;
    sk_disposable *disposable = NULL;
    if (variant == 0) {
        check(natsConnection_Subscribe(&subscription, subscriber_connection, subject, plain_on_message, NULL), "subscribe");
        check(natsSubscription_SetPendingLimits(subscription, (int)count + 1024, -1), "pending limits");
    } else {
        if (sk_nats_subject(&signal, subscriber_connection, subject, NULL, variant == 1 ? SK_NATS_PAYLOAD : SK_NATS_MESSAGE)
            != SK_OK) {
            die("sk_nats_subject", sk_nats_last_error_message());
        }
        if (sk_signal_start(&disposable, signal, &counting_observer) != SK_OK) {
            die("sk_signal_start", sk_last_error_message());
        }
    }
    check(natsConnection_Flush(subscriber_connection), "flush the subscription");
    publisher p = { publisher_connection, subject, count };
    double start = now_seconds();
    pthread_t thread;
    if (pthread_create(&thread, NULL, publish_all, &p) != 0) {
        die("pthread_create", NULL);
    }
    double end = counter_wait(&counted, variant == 0 ? "libnats subscriber" : "sk_nats_subject");
    pthread_join(thread, NULL);
    if (variant == 0) {
        natsSubscription_Unsubscribe(subscription);
        natsSubscription_Destroy(subscription);
    } else {
        sk_disposable_dispose(disposable);
        sk_disposable_release(disposable);
        sk_signal_release(signal);
    }
    natsConnection_Destroy(publisher_connection);
    natsConnection_Destroy(subscriber_connection);
    return (end - start) * 1e9 / (double)count;
}

/* JetStream --------------------------------------------------------------- */

#define JS_STREAM "BENCH"
#define JS_SUBJECT "bench.js"

static void js_prepare(jsCtx *js, long count) {
    jsStreamConfig config;
    jsStreamConfig_Init(&config);
    config.Name = JS_STREAM;
    const char *subjects[1] = { JS_SUBJECT };
    config.Subjects = subjects;
    config.SubjectsLen = 1;
    config.Storage = js_FileStorage;
    jsStreamInfo *info = NULL;
    jsErrCode code = 0;
    check(js_AddStream(&info, js, &config, NULL, &code), "add the stream");
    jsStreamInfo_Destroy(info);
    char payload[PAYLOAD_SIZE];
    memset(payload, 'j', sizeof payload);
    for (long i = 0; i < count; i++) {
        memcpy(payload, &i, sizeof i);
        check(js_PublishAsync(js, JS_SUBJECT, payload, sizeof payload, NULL), "js_PublishAsync");
    }
    jsPubOptions options;
    jsPubOptions_Init(&options);
    options.MaxWait = (int64_t)(WAIT_SECONDS * 1000);
    check(js_PublishAsyncComplete(js, &options), "js_PublishAsyncComplete");
}

static void js_add_consumer(jsCtx *js, const char *durable) {
    jsConsumerConfig config;
    jsConsumerConfig_Init(&config);
    config.Durable = durable;
    config.FilterSubject = JS_SUBJECT;
    config.AckPolicy = js_AckExplicit;
    config.AckWait = (int64_t)60 * 1000000000;
    config.MaxAckPending = 20000;
    jsConsumerInfo *info = NULL;
    jsErrCode code = 0;
    check(js_AddConsumer(&info, js, JS_STREAM, &config, NULL, &code), "add a consumer");
    jsConsumerInfo_Destroy(info);
}

/* One run of the JetStream workload: `variant` 0 libnats's pull loop, 1
 * the bridge; ns per message. */
static double js_run(int variant, long count, int round) {
    natsConnection *connection = connect_with(0);
    jsCtx *js = NULL;
    check(natsConnection_JetStream(&js, connection, NULL), "natsConnection_JetStream");
    char durable[64];
    snprintf(durable, sizeof durable, "bench-%d-%d", round, variant);
    js_add_consumer(js, durable);
    counter_reset(&counted, count);
    double start = now_seconds(), end;
    if (variant == 0) {
        natsSubscription *subscription = NULL;
        jsErrCode code = 0;
        check(js_PullSubscribe(&subscription, js, JS_SUBJECT, durable, NULL, NULL, &code), "js_PullSubscribe");
        long received = 0;
        double deadline = start + WAIT_SECONDS;
        while (received < count) {
            natsMsgList list = { 0 };
            natsStatus status = natsSubscription_Fetch(&list, subscription, JS_BATCH, 1000, &code);
            if (status == NATS_TIMEOUT && now_seconds() < deadline) {
                continue;
            }
            check(status, "natsSubscription_Fetch");
            for (int i = 0; i < list.Count; i++) {
                check(natsMsg_Ack(list.Msgs[i], NULL), "natsMsg_Ack");
                counter_add(&counted);
            }
            received += list.Count;
            natsMsgList_Destroy(&list);
        }
        end = counter_wait(&counted, "libnats pull loop");
        natsSubscription_Destroy(subscription);
    } else {
        sk_signal *signal = NULL;
        sk_disposable *disposable = NULL;
        if (sk_nats_js_consume(&signal, connection, NULL, JS_STREAM, durable, JS_SUBJECT, SK_NATS_PAYLOAD,
                               SK_NATS_ACK_AFTER_NEXT, NULL, JS_CAPACITY) != SK_OK) {
            die("sk_nats_js_consume", sk_nats_last_error_message());
        }
        if (sk_signal_start(&disposable, signal, &counting_observer) != SK_OK) {
            die("sk_signal_start", sk_last_error_message());
        }
        end = counter_wait(&counted, "sk_nats_js_consume");
        sk_disposable_dispose(disposable);
        sk_disposable_release(disposable);
        sk_signal_release(signal);
    }
    natsConnection_Flush(connection);
    jsCtx_Destroy(js);
    natsConnection_Destroy(connection);
    return (end - start) * 1e9 / (double)count;
}

/* The table ----------------------------------------------------------------- */

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int count) {
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    return count % 2 == 1 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}

static long parse_count(const char *text, const char *option) {
    char *end = NULL;
    long value = strtol(text, &end, 10);
    if (end == text || *end != '\0' || value < 1) {
        die("expected a positive count after", option);
    }
    return value;
}

int main(int argc, char **argv) {
    long messages = 1000000, js_messages = 200000;
    int reps = 5;
    for (int i = 1; i < argc; i++) {
        const char *option = argv[i];
        if (strcmp(option, "--messages") == 0 && i + 1 < argc) {
            messages = parse_count(argv[++i], option);
        } else if (strcmp(option, "--js-messages") == 0 && i + 1 < argc) {
            js_messages = parse_count(argv[++i], option);
        } else if (strcmp(option, "--reps") == 0 && i + 1 < argc) {
            reps = (int)parse_count(argv[++i], option);
        } else {
            fprintf(stderr, "usage: bench_nats [--messages N] [--js-messages M] [--reps R]\n");
            return 2;
        }
    }
    if (messages > 100000000) {
        die("--messages", "at most 100,000,000 (the subscriber's pending limit is an int)");
    }
    server_start();

    natsConnection *setup = connect_with(0);
    jsCtx *js = NULL;
    check(natsConnection_JetStream(&js, setup, NULL), "natsConnection_JetStream");
    js_prepare(js, js_messages);
    jsCtx_Destroy(js);
    natsConnection_Destroy(setup);

    double *core[3], *jet[2];
    for (int v = 0; v < 3; v++) {
        core[v] = calloc((size_t)reps, sizeof(double));
    }
    for (int v = 0; v < 2; v++) {
        jet[v] = calloc((size_t)reps, sizeof(double));
    }
    for (int round = 0; round < reps; round++) {
        for (int v = 0; v < 3; v++) {
            core[v][round] = core_run(v, messages, round);
        }
        for (int v = 0; v < 2; v++) {
            jet[v][round] = js_run(v, js_messages, round);
        }
        fprintf(stderr, "bench_nats: round %d of %d: core %.1f / %.1f / %.1f ns, js %.1f / %.1f ns\n", round + 1, reps,
                core[0][round], core[1][round], core[2][round], jet[0][round], jet[1][round]);
    }
    double plain = median(core[0], reps), payload = median(core[1], reps), message = median(core[2], reps);
    double pull = median(jet[0], reps), consume = median(jet[1], reps);
    printf("NATS bridge against libnats: nats-server on 127.0.0.1, %d-byte payloads, medians of %d rounds\n",
           PAYLOAD_SIZE, reps);
    printf("%-58s %10s %8s %s\n", "workload", "ns/msg", "ratio", "target");
    printf("%-58s %10.1f\n", "core: libnats async subscriber, counting", plain);
    printf("%-58s %10.1f %8.3f %s\n", "core: sk_nats_subject (SK_NATS_PAYLOAD) -> counting observer", payload,
           payload / plain, payload / plain <= 1.2 ? "<= 1.2: within" : "<= 1.2: OVER");
    printf("%-58s %10.1f %8.3f %s\n", "core: sk_nats_subject (SK_NATS_MESSAGE) -> counting observer", message,
           message / plain, message / plain <= 1.2 ? "<= 1.2: within" : "<= 1.2: OVER");
    printf("%-58s %10.1f\n", "js: libnats pull loop (Fetch 256, Ack each)", pull);
    printf("%-58s %10.1f %8.3f %s\n", "js: sk_nats_js_consume (capacity 1000) -> counting observer", consume,
           consume / pull, consume / pull <= 1.5 ? "<= 1.5: within" : "<= 1.5: OVER");
    printf("(core: %ld messages per run; js: %ld messages per run)\n", messages, js_messages);
    for (int v = 0; v < 3; v++) {
        free(core[v]);
    }
    for (int v = 0; v < 2; v++) {
        free(jet[v]);
    }
    nats_Close();
    return 0;
}
