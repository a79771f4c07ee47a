/* nats_support.c - see nats_support.h. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nats_support.h"

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static struct timespec deadline_in(double seconds) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    double whole = (double)t.tv_sec + (double)t.tv_nsec / 1e9 + seconds;
    t.tv_sec = (time_t)whole;
    t.tv_nsec = (long)((whole - (double)t.tv_sec) * 1e9);
    return t;
}

/* Two free ports on 127.0.0.1: bound at once (so they differ), then let go
 * for the server to take. */
static void free_ports(int *a, int *b) {
    int fds[2];
    int *ports[2] = { a, b };
    for (int i = 0; i < 2; i++) {
        fds[i] = socket(AF_INET, SOCK_STREAM, 0);
        cr_assert_geq(fds[i], 0, "socket: %s", strerror(errno));
        struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = 0 };
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        cr_assert_eq(bind(fds[i], (struct sockaddr *)&address, sizeof address), 0, "bind: %s", strerror(errno));
        socklen_t length = sizeof address;
        cr_assert_eq(getsockname(fds[i], (struct sockaddr *)&address, &length), 0);
        *ports[i] = ntohs(address.sin_port);
    }
    close(fds[0]);
    close(fds[1]);
}

static void print_log(const nats_server *server) {
    char path[300];
    snprintf(path, sizeof path, "%s/server.log", server->dir);
    FILE *log = fopen(path, "r");
    if (log == NULL) {
        return;
    }
    char line[512];
    fprintf(stderr, "--- %s\n", path);
    while (fgets(line, sizeof line, log) != NULL) {
        fputs(line, stderr);
    }
    fclose(log);
}

/* Starts the server of `server` (its port, folder and log, as set) and
 * waits until it accepts a connection. */
static void server_spawn(nats_server *server) {
    char port[16], monitor[16], store[300], log[300];
    snprintf(port, sizeof port, "%d", server->port);
    snprintf(monitor, sizeof monitor, "%d", server->monitor_port);
    snprintf(store, sizeof store, "%s/js", server->dir);
    snprintf(log, sizeof log, "%s/server.log", server->dir);
    const char *program = getenv("NATS_SERVER");
    if (program == NULL || program[0] == '\0') {
        program = access("/usr/sbin/nats-server", X_OK) == 0 ? "/usr/sbin/nats-server" : "nats-server";
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        /* The server dies with the test's thread (a failed assertion's
         * _exit, the runner's SIGKILL at a timeout). */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) {
            _exit(127);
        }
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        execlp(program, program, "-a", "127.0.0.1", "-p", port, "-m", monitor, "-js", "-sd", store, "-l", log,
               (char *)NULL);
        _exit(127);
    }
    server->pid = pid;
    /* Poll: connect until the server accepts, with a deadline; between
     * attempts, wait for the server's death (a failed start) for at most
     * 5 ms. */
    double deadline = now_seconds() + NATS_WAIT_SECONDS;
    for (;;) {
        natsConnection *connection = NULL;
        natsOptions *options = NULL;
        natsOptions_Create(&options);
        natsOptions_SetURL(options, server->url);
        natsOptions_SetAllowReconnect(options, false);
        natsOptions_SetTimeout(options, 1000);
        natsStatus status = natsConnection_Connect(&connection, options);
        natsOptions_Destroy(options);
        if (status == NATS_OK) {
            natsConnection_Destroy(connection);
            return;
        }
        int wstatus;
        if (waitpid(pid, &wstatus, WNOHANG) == pid) {
            server->pid = 0;
            print_log(server);
            cr_assert_fail("%s exited (status 0x%x) before accepting connections on %s", program, wstatus, server->url);
        }
        if (now_seconds() > deadline) {
            print_log(server);
            cr_assert_fail("nats-server did not accept a connection on %s within %g s", server->url, NATS_WAIT_SECONDS);
        }
        (void)poll(NULL, 0, 5); /* the poll interval; the deadline above bounds the whole */
    }
}

void nats_server_start(nats_server *server) {
    memset(server, 0, sizeof *server);
    const char *tmp = getenv("TMPDIR");
    snprintf(server->dir, sizeof server->dir, "%s/nats-test-XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    cr_assert_not_null(mkdtemp(server->dir), "mkdtemp %s: %s", server->dir, strerror(errno));
    free_ports(&server->port, &server->monitor_port);
    snprintf(server->url, sizeof server->url, "nats://127.0.0.1:%d", server->port);
    server_spawn(server);
}

void nats_server_kill(nats_server *server) {
    cr_assert_gt(server->pid, 0);
    kill(server->pid, SIGKILL);
    int wstatus;
    while (waitpid(server->pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    server->pid = 0;
}

void nats_server_restart(nats_server *server) {
    cr_assert_eq(server->pid, 0, "the server still runs");
    server_spawn(server);
}

static int remove_entry(const char *path, const struct stat *stat, int flag, struct FTW *ftw) {
    (void)stat;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void nats_server_stop(nats_server *server) {
    if (server->pid > 0) {
        kill(server->pid, SIGTERM);
        int wstatus;
        while (waitpid(server->pid, &wstatus, 0) < 0 && errno == EINTR) {
        }
        server->pid = 0;
    }
    if (server->dir[0] != '\0') {
        nftw(server->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        server->dir[0] = '\0';
    }
}

natsConnection *nats_connect(const nats_server *server, int max_pending) {
    natsConnection *connection = NULL;
    natsOptions *options = NULL;
    cr_assert_eq(natsOptions_Create(&options), NATS_OK);
    natsOptions_SetURL(options, server->url);
    if (max_pending > 0) {
        cr_assert_eq(natsOptions_SetMaxPendingMsgs(options, max_pending), NATS_OK);
    }
    natsStatus status = natsConnection_Connect(&connection, options);
    natsOptions_Destroy(options);
    cr_assert_eq(status, NATS_OK, "connect to %s: %s", server->url, natsStatus_GetText(status));
    return connection;
}

natsConnection *nats_connect_reconnecting(const nats_server *server) {
    natsConnection *connection = NULL;
    natsOptions *options = NULL;
    cr_assert_eq(natsOptions_Create(&options), NATS_OK);
    natsOptions_SetURL(options, server->url);
    natsOptions_SetAllowReconnect(options, true);
    natsOptions_SetMaxReconnect(options, -1); /* unlimited: the test's deadlines bound it */
    natsOptions_SetReconnectWait(options, 10);
    natsOptions_SetReconnectJitter(options, 0, 0);
    natsOptions_SetReconnectBufSize(options, 64 * 1024 * 1024);
    natsStatus status = natsConnection_Connect(&connection, options);
    natsOptions_Destroy(options);
    cr_assert_eq(status, NATS_OK, "connect to %s: %s", server->url, natsStatus_GetText(status));
    return connection;
}

jsCtx *nats_js(natsConnection *connection) {
    jsCtx *js = NULL;
    cr_assert_eq(natsConnection_JetStream(&js, connection, NULL), NATS_OK);
    return js;
}

void nats_add_stream(jsCtx *js, const char *name, const char *subjects) {
    jsStreamConfig config;
    jsStreamConfig_Init(&config);
    config.Name = name;
    const char *list[1] = { subjects };
    config.Subjects = list;
    config.SubjectsLen = 1;
    config.Storage = js_FileStorage;
    jsStreamInfo *info = NULL;
    jsErrCode code = 0;
    natsStatus status = js_AddStream(&info, js, &config, NULL, &code);
    cr_assert_eq(status, NATS_OK, "add stream %s: %s (%d) %s", name, natsStatus_GetText(status), (int)code,
                 nats_GetLastError(NULL));
    jsStreamInfo_Destroy(info);
}

void nats_add_consumer(jsCtx *js, const char *stream, const char *durable, const char *subject, double ack_wait,
                       int64_t max_ack_pending) {
    jsConsumerConfig config;
    jsConsumerConfig_Init(&config);
    config.Durable = durable;
    config.FilterSubject = subject;
    config.AckPolicy = js_AckExplicit;
    config.AckWait = (int64_t)(ack_wait * 1e9);
    config.MaxAckPending = max_ack_pending;
    jsConsumerInfo *info = NULL;
    jsErrCode code = 0;
    natsStatus status = js_AddConsumer(&info, js, stream, &config, NULL, &code);
    cr_assert_eq(status, NATS_OK, "add consumer %s: %s (%d) %s", durable, natsStatus_GetText(status), (int)code,
                 nats_GetLastError(NULL));
    jsConsumerInfo_Destroy(info);
}

uint64_t nats_consumer_counts(jsCtx *js, const char *stream, const char *durable, int64_t *ack_pending,
                              uint64_t *pending) {
    jsConsumerInfo *info = NULL;
    natsStatus status = js_GetConsumerInfo(&info, js, stream, durable, NULL, NULL);
    cr_assert_eq(status, NATS_OK, "consumer info %s: %s", durable, natsStatus_GetText(status));
    *ack_pending = info->NumAckPending;
    *pending = info->NumPending;
    uint64_t delivered = info->Delivered.Consumer;
    jsConsumerInfo_Destroy(info);
    return delivered;
}

/* The generator of indexed_signal(): `count` 8-byte indexes, then the
 * completion, on the starting thread. */
static sk_disposable *indexed_start(void *ctx, sk_subscriber *subscriber) {
    long count = (long)(intptr_t)ctx;
    for (long i = 0; i < count; i++) {
        unsigned char bytes[8];
        uint64_t index = (uint64_t)i;
        for (int b = 7; b >= 0; b--) {
            bytes[b] = (unsigned char)(index & 0xff);
            index >>= 8;
        }
        sk_value value = { 0 };
        cr_assert_eq(sk_value_set_bytes(&value, bytes, 8), SK_OK);
        sk_subscriber_put_next(subscriber, &value);
        sk_value_release(&value);
    }
    sk_subscriber_put_completion(subscriber);
    return NULL;
}

sk_signal *indexed_signal(long count) {
    sk_signal *signal = NULL;
    cr_assert_eq(sk_signal_create(&signal, indexed_start, (void *)(intptr_t)count, NULL), SK_OK);
    return signal;
}

char *nats_monitor_get(const nats_server *server, const char *path) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct timeval timeout = { .tv_sec = (time_t)NATS_WAIT_SECONDS };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons((uint16_t)server->monitor_port) };
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&address, sizeof address), 0, "connect to the monitoring port: %s",
                 strerror(errno));
    char request[256];
    int length = snprintf(request, sizeof request, "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
    cr_assert_eq(write(fd, request, (size_t)length), length);
    size_t size = 0, capacity = 65536;
    char *response = malloc(capacity);
    for (;;) {
        if (size + 1 == capacity) {
            capacity *= 2;
            response = realloc(response, capacity);
        }
        ssize_t got = read(fd, response + size, capacity - size - 1);
        cr_assert_geq(got, 0, "read from the monitoring port: %s", strerror(errno));
        if (got == 0) {
            break;
        }
        size += (size_t)got;
    }
    close(fd);
    response[size] = '\0';
    cr_assert(strncmp(response, "HTTP/1.", 7) == 0 && strstr(response, " 200 ") != NULL, "GET %s: %.200s", path, response);
    char *body = strstr(response, "\r\n\r\n");
    cr_assert_not_null(body);
    char *copy = strdup(body + 4);
    free(response);
    return copy;
}

static int subscriptions_matching(const nats_server *server, const char *subject, bool whole) {
    char *body = nats_monitor_get(server, "/subsz?subs=1&limit=100000");
    cr_assert_not_null(strstr(body, "\"num_subscriptions\""), "/subsz said: %.300s", body);
    char needle[256];
    snprintf(needle, sizeof needle, "\"subject\": \"%s%s", subject, whole ? "\"" : "");
    int count = 0;
    for (const char *at = strstr(body, needle); at != NULL; at = strstr(at + 1, needle)) {
        count++;
    }
    free(body);
    return count;
}

/* The recorder ---------------------------------------------------------- */

void recorder_init(recorder *r) {
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->mutex, NULL);
    pthread_cond_init(&r->changed, NULL);
}

void recorder_destroy(recorder *r) {
    sk_value_release(&r->last);
    for (int i = 0; i < 4; i++) {
        sk_value_release(&r->first[i]);
    }
    pthread_mutex_destroy(&r->mutex);
    pthread_cond_destroy(&r->changed);
}

static void recorder_next(void *ctx, const sk_value *value) {
    recorder *r = ctx;
    pthread_mutex_lock(&r->mutex);
    if (r->releases > 0) {
        r->after_release++;
    }
    if (__atomic_load_n(&r->dispose_returned, __ATOMIC_SEQ_CST) && pthread_equal(pthread_self(), r->disposer)) {
        r->after_dispose++;
    }
    sk_value_release(&r->last);
    sk_value_copy(&r->last, value);
    if (r->nexts < 4) {
        sk_value_copy(&r->first[r->nexts], value);
    }
    r->nexts++;
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->mutex);
}

static void recorder_error(void *ctx, const sk_value *error) {
    recorder *r = ctx;
    pthread_mutex_lock(&r->mutex);
    if (r->errors++ == 0) {
        const char *text = "(not a string)";
        size_t length = 0;
        if (sk_value_get_string(error, &text, &length) != SK_OK) {
            text = "(not a string)";
        }
        snprintf(r->error, sizeof r->error, "%s", text);
    }
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->mutex);
}

static void recorder_completed(void *ctx) {
    recorder *r = ctx;
    pthread_mutex_lock(&r->mutex);
    r->completions++;
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->mutex);
}

static void recorder_release(void *ctx) {
    recorder *r = ctx;
    pthread_mutex_lock(&r->mutex);
    r->releases++;
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->mutex);
}

sk_observer recorder_observer(recorder *r) {
    sk_observer observer = { recorder_next, recorder_error, recorder_completed, r, recorder_release };
    return observer;
}

bool recorder_wait(recorder *r, const long *field, long count) {
    struct timespec deadline = deadline_in(NATS_WAIT_SECONDS);
    pthread_mutex_lock(&r->mutex);
    int status = 0;
    while (*field < count && status == 0) {
        status = pthread_cond_timedwait(&r->changed, &r->mutex, &deadline);
    }
    bool reached = *field >= count;
    pthread_mutex_unlock(&r->mutex);
    return reached;
}

long recorder_get(recorder *r, const long *field) {
    pthread_mutex_lock(&r->mutex);
    long value = *field;
    pthread_mutex_unlock(&r->mutex);
    return value;
}

void recorder_dispose(recorder *r, sk_disposable *d) {
    r->disposer = pthread_self();
    sk_disposable_dispose(d);
    __atomic_store_n(&r->dispose_returned, 1, __ATOMIC_SEQ_CST);
}

/* The waiter ------------------------------------------------------------ */

void waiter_init(waiter *w) {
    memset(w, 0, sizeof *w);
    pthread_mutex_init(&w->mutex, NULL);
    pthread_cond_init(&w->changed, NULL);
}

void waiter_destroy(waiter *w) {
    pthread_mutex_destroy(&w->mutex);
    pthread_cond_destroy(&w->changed);
}

void waiter_add(waiter *w, long n) {
    pthread_mutex_lock(&w->mutex);
    w->count += n;
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->mutex);
}

bool waiter_wait(waiter *w, long count) {
    struct timespec deadline = deadline_in(NATS_WAIT_SECONDS);
    pthread_mutex_lock(&w->mutex);
    int status = 0;
    while (w->count < count && status == 0) {
        status = pthread_cond_timedwait(&w->changed, &w->mutex, &deadline);
    }
    bool reached = w->count >= count;
    pthread_mutex_unlock(&w->mutex);
    return reached;
}

long waiter_get(waiter *w) {
    pthread_mutex_lock(&w->mutex);
    long count = w->count;
    pthread_mutex_unlock(&w->mutex);
    return count;
}

/* Payloads -------------------------------------------------------------- */

static const sk_value *payload_of(const sk_value *value) {
    const sk_value *payload = value;
    if (sk_value_kind(value) == SK_KIND_ARRAY) {
        cr_assert_eq(sk_value_get_array_item(value, SK_NATS_ITEM_PAYLOAD, &payload), SK_OK);
    }
    return payload;
}

void payload_text(const sk_value *value, char *buffer, size_t size) {
    const void *data = NULL;
    size_t length = 0;
    cr_assert_eq(sk_value_get_bytes(payload_of(value), &data, &length), SK_OK, "the payload is not bytes");
    if (length >= size) {
        length = size - 1;
    }
    memcpy(buffer, data, length);
    buffer[length] = '\0';
}

int64_t payload_index(const sk_value *value) {
    const void *data = NULL;
    size_t length = 0;
    if (sk_value_get_bytes(payload_of(value), &data, &length) != SK_OK || length < 8) {
        return -1;
    }
    const unsigned char *bytes = data;
    uint64_t index = 0;
    for (int i = 0; i < 8; i++) {
        index = index << 8 | bytes[i];
    }
    return (int64_t)index;
}

void publish_index(natsConnection *connection, const char *subject, int64_t index) {
    unsigned char bytes[8];
    for (int i = 7; i >= 0; i--) {
        bytes[i] = (unsigned char)(index & 0xff);
        index >>= 8;
    }
    natsStatus status = natsConnection_Publish(connection, subject, bytes, 8);
    cr_assert_eq(status, NATS_OK, "publish: %s", natsStatus_GetText(status));
}

int nats_server_subscriptions(const nats_server *server, const char *subject) {
    return subscriptions_matching(server, subject, true);
}

int nats_server_subscriptions_starting(const nats_server *server, const char *prefix) {
    return subscriptions_matching(server, prefix, false);
}

int nats_wait_subscriptions_starting(const nats_server *server, natsConnection *connection, const char *prefix,
                                     int expected) {
    /* The server learns of an unsubscription when the client's flush
     * reaches it, which a thread of the bridge may start after the release
     * the test waited for: asked again until it agrees, at most 60 s. */
    struct timespec start, now, pause = {0, 1000000};
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        (void)natsConnection_Flush(connection);
        int found = subscriptions_matching(server, prefix, false);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (found == expected || now.tv_sec - start.tv_sec > 60) {
            return found;
        }
        nanosleep(&pause, NULL); /* a poll of the server's monitor, which has no event to wait on */
    }
}

long nats_wait_live_objects(long expected) {
    (void)sk_live_objects_wait(expected, 60.0);
    return sk_live_objects();
}
