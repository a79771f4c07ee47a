/*
 * The shared marble table (Tests/marbles, format in its README.md) run
 * against the C API: each *.marbles file is read at run time, each case
 * played on a virtual-time queue with the test signals and recorder of
 * signalkit_test.h, and its `out`, `also` and `sub` lines compared with what
 * happened. The table's operators and functions map to C functions below;
 * a line, operator or function this runner does not know fails the case
 * (a table never passes by being skipped).
 *
 * A callback the case makes fail (`!`, the README's "Functions") calls
 * sk_callback_fail with the case's own error value: the runner checks that
 * the error the subscriber receives is that value (kept by a catch between
 * the case's signal and the recorder, which prints any error as `#`), and
 * that a side effect's call was refused (SK_ERR_UNSUPPORTED).
 *
 * A bounded operator's drop callback puts each value it is given into a
 * pipe, recorded as the case's `dropped` line; where its policy ends the
 * stream (error, block) the error received must be its overflow error.
 *
 * The table's folder is Tests/marbles from the directory the suite runs in
 * (make runs it from the repository's root), or $SK_MARBLES_DIR.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <signalkit_test.h>

#include "support.h"

/* One frame of the table is one second of virtual time. */
#define FRAME 1.0

/* The policies of the bounded operators, by their names in the table. */
#define POLICY_NAMES "dropNewest, dropOldest, latest, error, block"

#define MAX_WORDS 16
#define MAX_INPUTS 8
#define MAX_VALUES 40
#define MAX_OPS 8
#define MAX_SUBS 8
#define MAX_ALSO 4
#define MAX_LINE 512
#define MAX_FAILURE 4096


typedef struct words {
    char *word[MAX_WORDS];
    size_t count;
} words;

typedef struct input {
    char name[32];
    char diagram[MAX_LINE];
    bool hot;
    sk_signal *signal;
    sk_test_subscriptions *log;
} input;

typedef struct sub_line {
    char input[32];
    long from, to; /* to -1: never disposed; from -1: never subscribed */
} sub_line;

typedef struct also_line {
    long from, to;
    char diagram[MAX_LINE];
    sk_test_recorder *recorder;
} also_line;

/* The callbacks that fail (`!` in a case, README.md's "Functions") and what
 * came of them: every failing callback gives sk_callback_fail `error`. */
typedef struct failure_log {
    bool used;          /* the case has a `!` */
    sk_value error;     /* the error the callbacks fail with */
    int failed;         /* operator callbacks' calls that failed (SK_OK) */
    int refused;        /* side effects' calls refused (SK_ERR_UNSUPPORTED) */
    int wrong;          /* calls whose status was not the table's */
    int wrong_status;   /* the last of those statuses */
    sk_value received;  /* the first error the subscriber received */
    int received_count;
} failure_log;

/* The case's bounded operator (README.md's `dropped`): what its drop
 * callback receives goes into `drops` (recorded by `recorder`), the error
 * its policy ends the stream with (`expect`: the words the message has,
 * NULL for a policy that drops), the host-drained queues it delivers on. */
typedef struct bounded_log {
    bool used;
    const char *expect;
    sk_pipe *drops;
    sk_test_recorder *recorder;
    sk_queue *hosts[MAX_OPS];
    size_t host_count;
    sk_value received; /* the first error the subscriber received */
    int received_count;
} bounded_log;

/* `during C XYZ`: the first input's latest subscriber, to put X, Y, Z into
 * from inside the subscriber's call with C's value. */
typedef struct feed_log {
    bool used, done;
    char trigger;
    char puts[MAX_LINE];
    sk_signal *upstream;
    sk_subscriber *subscriber;
    const sk_marble_value *values;
    size_t value_count;
} feed_log;

/* `fails C`: the subscriber's value callback, started by
 * sk_signal_start_failable, fails (sk_callback_fail with the case's error)
 * when it receives C's value, after passing it on; `downstream` is the
 * subscriber of the signal the recorder observes, to which it forwards. */
typedef struct fails_log {
    bool used;
    char trigger;
    sk_signal *upstream;
    const sk_marble_value *values;
    size_t value_count;
    failure_log *log;
} fails_log;

typedef struct marble_case {
    char file[256];
    int line;
    char name[128];
    input inputs[MAX_INPUTS];
    size_t input_count;
    sk_marble_value values[MAX_VALUES];
    size_t value_count;
    char op_text[MAX_OPS][MAX_LINE];
    size_t op_count;
    char out[MAX_LINE];
    bool has_out;
    sub_line subs[MAX_SUBS];
    size_t sub_count;
    also_line also[MAX_ALSO];
    size_t also_count;
    long dispose_at;
    char dropped[MAX_LINE];
    bool has_dropped;
    sk_queue *queue;
    failure_log failures;
    bounded_log bounded;
    feed_log feed;
    fails_log fails;
} marble_case;

/* ------------------------------------------------------------------------ */
/* Failures                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct report {
    char text[MAX_FAILURE];
    size_t length;
    int failed;
    int passed;
} report;

static void report_add(report *r, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void report_add(report *r, const char *format, ...) {
    va_list args;
    va_start(args, format);
    if (r->length < sizeof r->text) {
        int n = vsnprintf(r->text + r->length, sizeof r->text - r->length, format, args);
        if (n > 0) {
            r->length += (size_t)n;
        }
    }
    va_end(args);
}

/* ------------------------------------------------------------------------ */
/* Values                                                                    */
/* ------------------------------------------------------------------------ */

/* Parses an integer or a list of integers ("[1,2]") into `out`. */
static bool parse_value(const char *text, sk_value *out) {
    char *end = NULL;
    if (text[0] != '[') {
        errno = 0;
        long long n = strtoll(text, &end, 10);
        if (errno != 0 || end == text || *end != '\0') {
            return false;
        }
        sk_value_set_int64(out, n);
        return true;
    }
    sk_value items[32];
    size_t count = 0;
    const char *p = text + 1;
    if (*p == ']') {
        return p[1] == '\0' && sk_value_set_array(out, NULL, 0) == SK_OK;
    }
    for (;;) {
        if (count == 32) {
            return false;
        }
        errno = 0;
        long long n = strtoll(p, &end, 10);
        if (errno != 0 || end == p) {
            return false;
        }
        sk_value_set_int64(&items[count++], n);
        if (*end == ']') {
            return end[1] == '\0' && sk_value_set_array(out, items, count) == SK_OK;
        }
        if (*end != ',') {
            return false;
        }
        p = end + 1;
    }
}

static bool get_int(const sk_value *value, int64_t *out) {
    return sk_value_get_int64(value, out) == SK_OK;
}

/* ------------------------------------------------------------------------ */
/* The functions of the vocabulary                                           */
/* ------------------------------------------------------------------------ */

typedef enum fn_kind {
    F_NOTHING, F_IDENTITY, F_NEGATE, F_TIMES, F_PLUS, F_MOD,
    P_IS_EVEN, P_IS_ODD, P_ALWAYS, P_NEVER, P_LT, P_GT, P_EQ, P_NE,
    B_ADD, B_SUB, B_MUL, B_MAX
} fn_kind;

typedef struct fn_spec {
    fn_kind kind;
    int64_t k;
    /* `F!K`: the call with the value `fail_at` fails (into `log`); a side
     * effect of no value written `!` fails at every call (`every`). */
    bool fails, every;
    int64_t fail_at;
    failure_log *log;
} fn_spec;

/* An operator callback fails its call: sk_callback_fail must take it. */
static void fail_call(failure_log *log) {
    int status = sk_callback_fail(&log->error);
    if (status == SK_OK) {
        log->failed++;
    } else {
        log->wrong++;
        log->wrong_status = status;
    }
}

/* A side effect tries to fail: docs/misuse.md says sk_callback_fail
 * refuses it (SK_ERR_UNSUPPORTED) and the stream goes on. */
static void fail_side_effect(failure_log *log) {
    int status = sk_callback_fail(&log->error);
    if (status == SK_ERR_UNSUPPORTED) {
        log->refused++;
    } else {
        log->wrong++;
        log->wrong_status = status;
    }
}

static bool fails_at(const fn_spec *spec, int64_t x) {
    return spec && spec->fails && (spec->every || x == spec->fail_at);
}

/* The failure mark after a function's name, `!K`, or for a side effect of
 * no value, `!`: sets `spec`'s failure; false with the reason when the
 * text after `!` is not what the kind takes. */
static bool parse_failure(const char *text, const char *bang, bool every, fn_spec *spec, failure_log *log, char *why,
                          size_t why_size) {
    if (!bang) {
        return true;
    }
    if (every) {
        if (bang[1] != '\0') {
            snprintf(why, why_size, "`%s`: a side effect of no value fails with `!` alone", text);
            return false;
        }
    } else {
        char *end = NULL;
        errno = 0;
        spec->fail_at = strtoll(bang + 1, &end, 10);
        if (errno != 0 || end == bang + 1 || *end != '\0') {
            snprintf(why, why_size, "`%s`: the value after `!` is not an integer", text);
            return false;
        }
    }
    spec->fails = true;
    spec->every = every;
    spec->log = log;
    log->used = true;
    return true;
}

typedef enum fn_class { FN_MAP, FN_PREDICATE, FN_BINARY } fn_class;

static const struct {
    const char *name;
    fn_kind kind;
    fn_class cls;
    bool takes_k;
} FUNCTIONS[] = {
    {"identity", F_IDENTITY, FN_MAP, false}, {"negate", F_NEGATE, FN_MAP, false},
    {"times", F_TIMES, FN_MAP, true},        {"plus", F_PLUS, FN_MAP, true},
    {"mod", F_MOD, FN_MAP, true},            {"is_even", P_IS_EVEN, FN_PREDICATE, false},
    {"is_odd", P_IS_ODD, FN_PREDICATE, false}, {"always", P_ALWAYS, FN_PREDICATE, false},
    {"never", P_NEVER, FN_PREDICATE, false}, {"lt", P_LT, FN_PREDICATE, true},
    {"gt", P_GT, FN_PREDICATE, true},        {"eq", P_EQ, FN_PREDICATE, true},
    {"ne", P_NE, FN_PREDICATE, true},        {"add", B_ADD, FN_BINARY, false},
    {"sub", B_SUB, FN_BINARY, false},        {"mul", B_MUL, FN_BINARY, false},
    {"max", B_MAX, FN_BINARY, false},
};

/* A heap fn_spec for the function named `text` of class `cls`, or NULL
 * (with the reason in `why`). `F!K` fails when its value is K, into `log`. */
static fn_spec *parse_function(const char *text, fn_class cls, failure_log *log, char *why, size_t why_size) {
    const char *bang = strchr(text, '!');
    size_t length = bang ? (size_t)(bang - text) : strlen(text);
    const char *colon = memchr(text, ':', length);
    size_t name_length = colon ? (size_t)(colon - text) : length;
    for (size_t i = 0; i < sizeof FUNCTIONS / sizeof FUNCTIONS[0]; i++) {
        if (strlen(FUNCTIONS[i].name) != name_length || strncmp(FUNCTIONS[i].name, text, name_length) != 0) {
            continue;
        }
        if (FUNCTIONS[i].cls != cls) {
            snprintf(why, why_size, "function `%s` is not of the kind this operator takes", text);
            return NULL;
        }
        int64_t k = 0;
        if (FUNCTIONS[i].takes_k) {
            char *end = NULL;
            if (!colon || colon + 1 == text + length) {
                snprintf(why, why_size, "function `%s` needs its constant (`%s:K`)", text, FUNCTIONS[i].name);
                return NULL;
            }
            k = strtoll(colon + 1, &end, 10);
            if (end != text + length) {
                snprintf(why, why_size, "function `%s`: its constant is not an integer", text);
                return NULL;
            }
        } else if (colon) {
            snprintf(why, why_size, "function `%s` takes no constant", text);
            return NULL;
        }
        fn_spec *spec = calloc(1, sizeof *spec);
        cr_assert_not_null(spec);
        spec->kind = FUNCTIONS[i].kind;
        spec->k = k;
        if (!parse_failure(text, bang, false, spec, log, why, why_size)) {
            free(spec);
            return NULL;
        }
        return spec;
    }
    snprintf(why, why_size, "unknown function `%s`", text);
    return NULL;
}

static void map_fn(void *ctx, const sk_value *value, sk_value *out) {
    const fn_spec *spec = ctx;
    int64_t x = 0;
    if (!get_int(value, &x)) {
        return; /* nil: the case's diagram then shows `?` */
    }
    bool failing = fails_at(spec, x);
    switch (spec->kind) {
    case F_IDENTITY: break;
    case F_NEGATE: x = -x; break;
    case F_TIMES: x *= spec->k; break;
    case F_PLUS: x += spec->k; break;
    case F_MOD: x = spec->k == 0 ? 0 : x % spec->k; break;
    default: return;
    }
    /* A call that fails still writes its result: the library ignores it. */
    sk_value_set_int64(out, x);
    if (failing) {
        fail_call(spec->log);
    }
}

static bool predicate_answer(const fn_spec *spec, int64_t x) {
    switch (spec->kind) {
    case P_IS_EVEN: return x % 2 == 0;
    case P_IS_ODD: return x % 2 != 0;
    case P_ALWAYS: return true;
    case P_NEVER: return false;
    case P_LT: return x < spec->k;
    case P_GT: return x > spec->k;
    case P_EQ: return x == spec->k;
    case P_NE: return x != spec->k;
    default: return false;
    }
}

static bool predicate_fn(void *ctx, const sk_value *value) {
    const fn_spec *spec = ctx;
    int64_t x = 0;
    if (!get_int(value, &x)) {
        return false;
    }
    bool answer = predicate_answer(spec, x);
    /* A call that fails still answers: the library ignores it. */
    if (fails_at(spec, x)) {
        fail_call(spec->log);
    }
    return answer;
}

static void binary_fn(void *ctx, const sk_value *accumulator, const sk_value *value, sk_value *out) {
    const fn_spec *spec = ctx;
    int64_t a = 0, x = 0;
    if (!get_int(accumulator, &a) || !get_int(value, &x)) {
        return;
    }
    switch (spec->kind) {
    case B_ADD: a += x; break;
    case B_SUB: a -= x; break;
    case B_MUL: a *= x; break;
    case B_MAX: a = x > a ? x : a; break;
    default: return;
    }
    sk_value_set_int64(out, a);
    if (fails_at(spec, x)) {
        fail_call(spec->log);
    }
}

/* The side effects' functions (the shapes tap and work): they do nothing,
 * and the case checks that the events pass unchanged. With `!K` (`!`),
 * `ctx` is their failure: they try to fail, which the library refuses. */
static void look_fn(void *ctx, const sk_value *value) {
    const fn_spec *spec = ctx;
    int64_t x = 0;
    if (spec && get_int(value, &x) && fails_at(spec, x)) {
        fail_side_effect(spec->log);
    }
}

static void work_fn(void *ctx) {
    const fn_spec *spec = ctx;
    if (spec) {
        fail_side_effect(spec->log);
    }
}

/* A side effect's function, written with no argument (NULL: it does
 * nothing) or `!K` (`!` for one of no value, `every`); false with the
 * reason when the argument is something else. */
static bool parse_side_effect(const words *w, bool every, failure_log *log, fn_spec **out, char *why, size_t size) {
    *out = NULL;
    if (w->count == 1) {
        return true;
    }
    if (w->count != 2 || w->word[1][0] != '!') {
        snprintf(why, size, "`%s` takes no argument, or `%s` for its function failing", w->word[0],
                 every ? "!" : "!K");
        return false;
    }
    fn_spec *spec = calloc(1, sizeof *spec);
    cr_assert_not_null(spec);
    spec->kind = F_NOTHING;
    if (!parse_failure(w->word[1], w->word[1], every, spec, log, why, size)) {
        free(spec);
        return false;
    }
    *out = spec;
    return true;
}

/* takeUntilAction's function: pass the value when the first predicate
 * holds, complete after it when the second does. */
typedef struct take_action_spec {
    fn_spec *pass, *complete;
} take_action_spec;

static int take_action_fn(void *ctx, const sk_value *value) {
    const take_action_spec *spec = ctx;
    return (predicate_fn(spec->pass, value) ? SK_TAKE_PASS : 0) |
           (predicate_fn(spec->complete, value) ? SK_TAKE_COMPLETE : 0);
}

static void take_action_release(void *ctx) {
    take_action_spec *spec = ctx;
    free(spec->pass);
    free(spec->complete);
    free(spec);
}

/* The named inputs a value `i` maps to (switchMap, concatMap, mergeMap),
 * or the one that catch's and deferred's function returns; a NULL entry,
 * written `!`, makes the function fail into `log`. */
typedef struct inner_table {
    sk_signal *signals[MAX_INPUTS];
    size_t count;
    failure_log *log;
    bounded_log *drops; /* mergeMapBounded's drop callback's */
} inner_table;

static void inner_table_release(void *ctx) {
    inner_table *table = ctx;
    for (size_t i = 0; i < table->count; i++) {
        sk_signal_release(table->signals[i]);
    }
    free(table);
}

/* The `i`-th entry, +1; NULL when the function failed (`!`). */
static sk_signal *inner_entry(const inner_table *table, size_t i) {
    if (!table->signals[i]) {
        fail_call(table->log);
        return NULL;
    }
    return sk_signal_retain(table->signals[i]);
}

/* The entry of the value's place; for a value that is no integer (catch's
 * error), the first. */
static sk_signal *inner_signal(const inner_table *table, const sk_value *value) {
    int64_t i = 0;
    if (!get_int(value, &i)) {
        i = 0;
    }
    if (i < 0 || (size_t)i >= table->count) {
        return NULL; /* an empty signal: the diagram then differs */
    }
    return inner_entry(table, (size_t)i);
}

/* deferred's function: the one entry of the table. */
static sk_signal *deferred_fn(void *ctx) {
    return inner_entry(ctx, 0);
}

static sk_signal *inner_signal_fn(void *ctx, const sk_value *value) {
    return inner_signal(ctx, value);
}

static void drop_fn(void *ctx, const sk_value *value, uint64_t dropped);

/* mergeMapBounded's drop callback, which shares the function's ctx. */
static void table_drop_fn(void *ctx, const sk_value *value, uint64_t dropped) {
    drop_fn(((inner_table *)ctx)->drops, value, dropped);
}

/* For concatMap, switchToLatest, queue and throttled: the value becomes a
 * signal value. */
static void inner_value_fn(void *ctx, const sk_value *value, sk_value *out) {
    sk_signal *signal = inner_signal(ctx, value);
    if (signal) {
        SK_OK_OR_ABORT(sk_value_set_signal(out, signal));
        sk_signal_release(signal);
    }
}

/* groupBy: each group's values as [key, value], the groups merged. */
static void release_value(void *ctx) {
    sk_value_release(ctx);
    free(ctx);
}

static void pair_with_key_fn(void *ctx, const sk_value *value, sk_value *out) {
    sk_value items[2] = {*(const sk_value *)ctx, *value};
    SK_OK_OR_ABORT(sk_value_set_array(out, items, 2));
}

static sk_signal *group_values_fn(void *ctx, const sk_value *group) {
    (void)ctx;
    const sk_value *key = NULL, *item = NULL;
    sk_signal *values = NULL, *pairs = NULL;
    SK_OK_OR_ABORT(sk_value_get_array_item(group, 0, &key));
    SK_OK_OR_ABORT(sk_value_get_array_item(group, 1, &item));
    SK_OK_OR_ABORT(sk_value_get_signal(item, &values));
    sk_value *key_copy = malloc(sizeof *key_copy);
    if (!key_copy) {
        abort();
    }
    SK_OK_OR_ABORT(sk_value_copy(key_copy, key));
    SK_OK_OR_ABORT(sk_signal_map(&pairs, values, pair_with_key_fn, key_copy, release_value));
    return pairs;
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                   */
/* ------------------------------------------------------------------------ */

static void split_words(char *line, words *w) {
    w->count = 0;
    char *save = NULL;
    for (char *word = strtok_r(line, " \t", &save); word && w->count < MAX_WORDS;
         word = strtok_r(NULL, " \t", &save)) {
        w->word[w->count++] = word;
    }
}

static input *find_input(marble_case *c, const char *name) {
    for (size_t i = 0; i < c->input_count; i++) {
        if (strcmp(c->inputs[i].name, name) == 0) {
            return &c->inputs[i];
        }
    }
    return NULL;
}

static bool parse_frame(const char *text, long *out) {
    if (strcmp(text, "-") == 0) {
        *out = -1;
        return true;
    }
    char *end = NULL;
    long n = strtol(text, &end, 10);
    if (*end != '\0' || n < 0) {
        return false;
    }
    *out = n;
    return true;
}

static void case_clear(marble_case *c) {
    for (size_t i = 0; i < c->value_count; i++) {
        sk_value_release(&c->values[i].value);
    }
    memset(c, 0, sizeof *c);
    c->dispose_at = -1;
}

/* Sets the value of `symbol`, replacing an earlier one (a digit's default). */
static bool set_value(marble_case *c, char symbol, const sk_value *value) {
    for (size_t i = 0; i < c->value_count; i++) {
        if (c->values[i].symbol == symbol) {
            sk_value_release(&c->values[i].value);
            c->values[i].value = *value;
            return true;
        }
    }
    if (c->value_count == MAX_VALUES) {
        return false;
    }
    c->values[c->value_count].symbol = symbol;
    c->values[c->value_count].value = *value;
    c->value_count++;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Running                                                                   */
/* ------------------------------------------------------------------------ */

static bool arg_long(const words *w, size_t i, long long *out, char *why, size_t size) {
    char *end = NULL;
    *out = strtoll(w->word[i], &end, 10);
    if (*end != '\0' || end == w->word[i]) {
        snprintf(why, size, "`%s`: argument %zu (`%s`) is not an integer", w->word[0], i, w->word[i]);
        return false;
    }
    return true;
}

/* The signals named by words 1... of `w`, borrowed, into `out`. */
static bool named_inputs(marble_case *c, const words *w, size_t first, sk_signal **out, size_t *count, char *why,
                         size_t size) {
    *count = 0;
    for (size_t i = first; i < w->count; i++) {
        input *in = find_input(c, w->word[i]);
        if (!in) {
            snprintf(why, size, "`%s` names no input `%s`", w->word[0], w->word[i]);
            return false;
        }
        out[(*count)++] = in->signal;
    }
    if (*count == 0) {
        snprintf(why, size, "`%s` needs at least one input", w->word[0]);
        return false;
    }
    return true;
}

/* The signals named by words `first`... of `w` for a signal function: an
 * input's name, or `!` (NULL) where the function fails. */
static bool named_or_failing(marble_case *c, const words *w, size_t first, sk_signal **out, size_t *count, char *why,
                             size_t size) {
    *count = 0;
    for (size_t i = first; i < w->count; i++) {
        if (strcmp(w->word[i], "!") == 0) {
            c->failures.used = true;
            out[(*count)++] = NULL;
            continue;
        }
        input *in = find_input(c, w->word[i]);
        if (!in) {
            snprintf(why, size, "`%s` names no input `%s`", w->word[0], w->word[i]);
            return false;
        }
        out[(*count)++] = in->signal;
    }
    if (*count == 0) {
        snprintf(why, size, "`%s` needs at least one input", w->word[0]);
        return false;
    }
    return true;
}

static inner_table *make_inner_table(marble_case *c, sk_signal *const *signals, size_t count) {
    inner_table *table = calloc(1, sizeof *table);
    cr_assert_not_null(table);
    for (size_t i = 0; i < count; i++) {
        table->signals[i] = sk_signal_retain(signals[i]);
    }
    table->count = count;
    table->log = &c->failures;
    return table;
}

/* Every C operator of the operator table (tools/api/operators.md), with
 * its marble names: ../common/operator_list.h, which make api-update writes
 * from the table and the C declarations. apply() builds concatMap alone,
 * the one name of the table with no C function. */
#include "../common/operator_list.h"

static const sk_test_marble *find_marble(const char *name) {
    for (size_t i = 0; i < SK_TEST_MARBLE_COUNT; i++) {
        if (strcmp(SK_TEST_MARBLES[i].name, name) == 0) {
            return &SK_TEST_MARBLES[i];
        }
    }
    return NULL;
}

/* A bounded operator's policy by the table's name; the error it ends the
 * stream with goes to `log->expect` (error: the overflow; block, which
 * cannot wait on the virtual clock's one thread: its refusal). */
static bool parse_overflow(bounded_log *log, const char *name, sk_overflow *out) {
    static const struct { const char *name; sk_overflow policy; const char *expect; } POLICIES[] = {
        {"dropNewest", SK_OVERFLOW_DROP_NEWEST, NULL}, {"dropOldest", SK_OVERFLOW_DROP_OLDEST, NULL},
        {"latest", SK_OVERFLOW_LATEST, NULL}, {"error", SK_OVERFLOW_ERROR, ": overflow: "},
        {"block", SK_OVERFLOW_BLOCK, ": cannot block: "},
    };
    for (size_t i = 0; i < sizeof POLICIES / sizeof POLICIES[0]; i++) {
        if (strcmp(POLICIES[i].name, name) == 0) {
            *out = POLICIES[i].policy;
            log->used = true;
            log->expect = POLICIES[i].expect;
            return true;
        }
    }
    return false;
}

/* Every bounded operator's drop callback: the value into the case's pipe. */
static void drop_fn(void *ctx, const sk_value *value, uint64_t dropped) {
    (void)dropped;
    bounded_log *log = ctx;
    SK_OK_OR_ABORT(sk_pipe_put(log->drops, value));
}

/* queueBounded's: a dropped signal is put as the place of its input among
 * the operator's (the upstream's value that named it). */
typedef struct signal_drop {
    bounded_log *log;
    sk_signal *signals[MAX_INPUTS];
    size_t count;
} signal_drop;

static void signal_drop_fn(void *ctx, const sk_value *value, uint64_t dropped) {
    (void)dropped;
    signal_drop *drop = ctx;
    sk_signal *signal = NULL;
    int64_t place = -1;
    if (sk_value_get_signal(value, &signal) == SK_OK) {
        for (size_t i = 0; i < drop->count; i++) {
            if (drop->signals[i] == signal) {
                place = (int64_t)i;
            }
        }
    }
    sk_value index;
    sk_value_set_int64(&index, place);
    SK_OK_OR_ABORT(sk_pipe_put(drop->log->drops, &index));
}

static void signal_drop_release(void *ctx) {
    signal_drop *drop = ctx;
    for (size_t i = 0; i < drop->count; i++) {
        sk_signal_release(drop->signals[i]);
    }
    free(drop);
}

static void host_drain_fn(void *ctx) {
    SK_OK_OR_ABORT(sk_queue_host_drain(ctx, 0, NULL));
}

/* What reading an `op` line's words for an operator made: its arguments,
 * and what the runner releases after the call. */
typedef struct reading {
    sk_test_args args;
    sk_value value;     /* a value or an initial value */
    bool has_value;
    sk_signal *named[MAX_INPUTS];
    sk_signal *upstream; /* of signals: the upstream's values mapped to inputs */
} reading;

/* The callback context read so far, released when the line cannot be
 * (the library releases it once it has the call). */
static void reading_abandon(reading *r) {
    if (r->args.release) {
        r->args.release(r->args.ctx);
    }
}

/* Reads the word(s) of `kind` from `w` at `*at` into `r` (each kind as
 * Tests/marbles/README.md's vocabulary says: a count, negative one past any
 * (SIZE_MAX), or a capacity or number of retries, negative 0; a function of
 * the vocabulary; a value; inputs' names, `!` where a signal function fails;
 * frames on the case's queue; a policy); false with why. */
static bool read_kind(marble_case *c, const words *w, size_t *at, sk_test_kind kind, reading *r, char *why,
                      size_t size) {
    sk_test_args *a = &r->args;
    const char *op = w->word[0];
    const char *word = *at < w->count ? w->word[*at] : NULL;
    bool optional = kind == SK_ARG_DELAY || kind == SK_ARG_LOOK || kind == SK_ARG_WORK;
    if (!word && !optional) {
        snprintf(why, size, "`%s` needs more arguments (%zu given)", op, w->count - 1);
        return false;
    }
    long long n = 0;
    if (kind == SK_ARG_COUNT || kind == SK_ARG_CONCURRENCY || kind == SK_ARG_RETRIES || kind == SK_ARG_CAPACITY ||
        kind == SK_ARG_INITIAL || kind == SK_ARG_SECONDS || kind == SK_ARG_MOST || (kind == SK_ARG_DELAY && word)) {
        if (!arg_long(w, *at, &n, why, size)) {
            return false;
        }
    }
    fn_spec *spec = NULL;
    size_t count = 0;
    switch (kind) {
    case SK_ARG_COUNT: a->count = n < 0 ? SIZE_MAX : (size_t)n; break;
    case SK_ARG_CONCURRENCY: a->concurrency = n < 0 ? SIZE_MAX : (size_t)n; break;
    case SK_ARG_RETRIES: a->retries = n < 0 ? 0 : (size_t)n; break;
    case SK_ARG_CAPACITY: a->capacity = n < 0 ? 0 : (size_t)n; break;
    case SK_ARG_SECONDS: a->seconds = (double)n * FRAME; break;
    case SK_ARG_MOST: a->most = (double)n * FRAME; break;
    case SK_ARG_DELAY:
        if (!word) {
            return true; /* no delay: none, and no queue */
        }
        a->delay = (double)n * FRAME;
        a->delay_queue = c->queue;
        break;
    case SK_ARG_PREDICATE:
    case SK_ARG_MAP:
    case SK_ARG_FOLD: {
        fn_class cls = kind == SK_ARG_PREDICATE ? FN_PREDICATE : kind == SK_ARG_MAP ? FN_MAP : FN_BINARY;
        if (!(spec = parse_function(word, cls, &c->failures, why, size))) {
            return false;
        }
        a->predicate = predicate_fn;
        a->map = map_fn;
        a->fold = binary_fn;
        a->ctx = spec;
        a->release = free;
        break;
    }
    case SK_ARG_VALUE:
    case SK_ARG_INITIAL:
        if (kind == SK_ARG_VALUE && !parse_value(word, &r->value)) {
            snprintf(why, size, "`%s`: `%s` is not a value", op, word);
            return false;
        }
        if (kind == SK_ARG_INITIAL) {
            sk_value_set_int64(&r->value, n);
        }
        r->has_value = true;
        a->value = a->initial = &r->value;
        break;
    case SK_ARG_OTHER: {
        input *in = find_input(c, word);
        if (!in) {
            snprintf(why, size, "`%s` names no input `%s`", op, word);
            return false;
        }
        a->other = in->signal;
        break;
    }
    case SK_ARG_SIGNALS:
        if (!named_inputs(c, w, *at, r->named, &count, why, size)) {
            return false;
        }
        a->signals = r->named;
        a->signal_count = count;
        *at = w->count;
        return true;
    case SK_ARG_LOOK:
    case SK_ARG_WORK:
        if (!parse_side_effect(w, kind == SK_ARG_WORK, &c->failures, &spec, why, size)) {
            return false;
        }
        a->look = look_fn;
        a->work = work_fn;
        a->ctx = spec;
        a->release = free;
        *at = w->count;
        return true;
    case SK_ARG_INNER:
    case SK_ARG_MAKE: {
        size_t from = *at;
        words one = *w;
        if (kind == SK_ARG_MAKE) {
            one.count = from + 1; /* one input */
        }
        if (!named_or_failing(c, &one, from, r->named, &count, why, size)) {
            return false;
        }
        a->inner = inner_signal_fn;
        a->make = deferred_fn;
        a->ctx = make_inner_table(c, r->named, count);
        a->release = inner_table_release;
        *at = one.count;
        return true;
    }
    case SK_ARG_ACTION: {
        if (*at + 1 >= w->count) {
            snprintf(why, size, "`%s` takes two predicates", op);
            return false;
        }
        fn_spec *complete = NULL;
        if (!(spec = parse_function(word, FN_PREDICATE, &c->failures, why, size))) {
            return false;
        }
        if (!(complete = parse_function(w->word[*at + 1], FN_PREDICATE, &c->failures, why, size))) {
            free(spec);
            return false;
        }
        take_action_spec *both = malloc(sizeof *both);
        cr_assert_not_null(both);
        both->pass = spec;
        both->complete = complete;
        a->action = take_action_fn;
        a->ctx = both;
        a->release = take_action_release;
        *at += 2;
        return true;
    }
    case SK_ARG_OVERFLOW:
        if (!parse_overflow(&c->bounded, word, &a->overflow)) {
            snprintf(why, size, "`%s`: `%s` is no policy (%s)", op, word, POLICY_NAMES);
            return false;
        }
        break;
    default:
        snprintf(why, size, "`%s`: the C runner has no reading of an argument of kind %d", op, (int)kind);
        return false;
    }
    (*at)++;
    return true;
}

/* Applies the operator of the marble name `m` to `in`: its words read as
 * the kinds of its `op` line, the others the case's (its virtual queue;
 * with `host F...` after a bounded operator's words, a host-drained queue
 * the case drains at the frames F), a bounded operator's drop callback
 * the case's (README.md's `dropped`), or none (no queue for
 * combineLatest). An operator of a signal of signals (`of signals`) maps
 * its upstream's value `i` to the `i`-th input named after its arguments;
 * one of groups has them merged, each value as [key, value]. The C
 * function's status, or -1 with `why` when the line does not fit. */
static int apply_marble(marble_case *c, const words *w, const sk_test_marble *m, sk_signal *in, sk_signal **made,
                        char *why, size_t size) {
    const sk_test_operator *op = m->op;
    reading r;
    memset(&r, 0, sizeof r);
    r.args.source = in;
    r.args.queue = c->queue;
    r.args.flag = m->flag;
    size_t at = 1;
    for (size_t k = 0; k < SK_TEST_MAX_KINDS && m->words[k] != SK_ARG_NONE; k++) {
        if (!read_kind(c, w, &at, m->words[k], &r, why, size)) {
            reading_abandon(&r);
            return -1;
        }
    }
    bool drops = sk_test_takes(op, SK_ARG_ON_DROP);
    if (drops && at + 1 < w->count && strcmp(w->word[at], "host") == 0 && sk_test_takes(op, SK_ARG_QUEUE)) {
        /* deliverOnBounded N P host F...: on a host-drained queue, drained
         * at the frames F, instead of the case's virtual queue. */
        cr_assert(c->bounded.host_count < MAX_OPS);
        sk_queue *host = NULL;
        SK_OK_OR_FAIL(sk_queue_create_host(&host, "marble host"));
        c->bounded.hosts[c->bounded.host_count++] = host;
        for (at++; at < w->count; at++) {
            long long frame = 0;
            if (!arg_long(w, at, &frame, why, size)) {
                reading_abandon(&r);
                return -1;
            }
            SK_OK_OR_FAIL(sk_queue_after(c->queue, (double)frame * FRAME, host_drain_fn, host, NULL));
        }
        r.args.queue = host;
    }
    if (drops && !(op->conventions & SK_TEST_OF_SIGNALS)) {
        if (r.args.release == inner_table_release) {
            /* mergeMapBounded: one context for its function and its drops. */
            ((inner_table *)r.args.ctx)->drops = &c->bounded;
            r.args.on_drop = table_drop_fn;
        } else if (!r.args.release) {
            r.args.on_drop = drop_fn;
            r.args.ctx = &c->bounded;
        }
    }
    if (op->conventions & SK_TEST_OF_SIGNALS) {
        size_t count = 0;
        if (!named_inputs(c, w, at, r.named, &count, why, size)) {
            reading_abandon(&r);
            return -1;
        }
        if (drops) {
            /* queueBounded: a dropped signal recorded as its input's place. */
            signal_drop *drop = calloc(1, sizeof *drop);
            cr_assert_not_null(drop);
            drop->log = &c->bounded;
            for (size_t i = 0; i < count; i++) {
                drop->signals[drop->count++] = sk_signal_retain(r.named[i]);
            }
            r.args.on_drop = signal_drop_fn;
            r.args.ctx = drop;
            r.args.release = signal_drop_release;
        }
        int status = sk_signal_map(&r.upstream, in, inner_value_fn, make_inner_table(c, r.named, count),
                                   inner_table_release);
        if (status != SK_OK) {
            reading_abandon(&r);
            return status;
        }
        r.args.source = r.upstream;
    } else if (at != w->count) {
        snprintf(why, size, "`%s` takes %zu argument(s), got %zu", w->word[0], at - 1, w->count - 1);
        reading_abandon(&r);
        return -1;
    }
    int status = op->call(made, &r.args);
    if (r.has_value) {
        sk_value_release(&r.value);
    }
    sk_signal_release(r.upstream);
    if (status == SK_OK && (op->conventions & SK_TEST_GROUPS)) {
        sk_signal *groups = *made;
        status = sk_signal_merge_map(made, groups, SIZE_MAX, group_values_fn, NULL, NULL);
        sk_signal_release(groups);
    }
    return status;
}

/* Applies one `op` line to `*signal` (replacing it, +1), or says why not. */
static bool apply(marble_case *c, char *text, sk_signal **signal, char *why, size_t size) {
    words w;
    split_words(text, &w);
    const char *op = w.word[0];
    sk_signal *in = *signal;
    sk_signal *made = NULL;
    sk_signal *named[MAX_INPUTS];
    size_t named_count = 0;
    int status = SK_OK;
    const sk_test_marble *marble = find_marble(op);
    if (marble) {
        status = apply_marble(c, &w, marble, in, &made, why, size);
        if (status < 0) {
            return false;
        }
    } else if (strcmp(op, "concatMap") == 0) {
        /* mapToQueue, which C has not: queue over the values mapped to signals. */
        if (!named_or_failing(c, &w, 1, named, &named_count, why, size)) return false;
        inner_table *table = make_inner_table(c, named, named_count);
        sk_signal *values = NULL;
        status = sk_signal_map(&values, in, inner_value_fn, table, inner_table_release);
        if (status == SK_OK) {
            status = sk_signal_queue(&made, values);
            sk_signal_release(values);
        }
    } else {
        snprintf(why, size, "unknown operator `%s`", op);
        return false;
    }
    if (status != SK_OK) {
        snprintf(why, size, "`%s` returned %s: %s", op, sk_status_string(status), sk_last_error_message());
        return false;
    }
    sk_signal_release(*signal);
    *signal = made;
    return true;
}

typedef struct also_start {
    also_line *line;
    sk_signal *signal;
    sk_queue *queue;
} also_start;

static void also_start_fn(void *ctx) {
    also_start *start = ctx;
    SK_OK_OR_ABORT(sk_test_record(&start->line->recorder, start->signal, start->queue, FRAME));
}

static void also_start_release(void *ctx) {
    also_start *start = ctx;
    sk_signal_release(start->signal);
    free(start);
}

static void dispose_recorder_fn(void *ctx) {
    sk_test_recorder_dispose(*(sk_test_recorder **)ctx);
}

/* Between the case's signal and its subscribers, where a callback fails:
 * keeps the first error they receive (the recorder prints any as `#`) and
 * passes it on unchanged, at the same frame. */
static sk_signal *received_error_fn(void *ctx, const sk_value *error) {
    failure_log *log = ctx;
    if (log->received_count++ == 0) {
        SK_OK_OR_ABORT(sk_value_copy(&log->received, error));
    }
    sk_signal *failing = NULL;
    SK_OK_OR_ABORT(sk_signal_fail(&failing, error));
    return failing;
}

/* Adds to `failures` what the case's failing callbacks did not do as the
 * table says (README.md's "Functions"). */
static void check_failures(marble_case *c, char *failures, size_t size) {
    failure_log *log = &c->failures;
    size_t used = strlen(failures);
    if (log->failed + log->refused == 0) {
        snprintf(failures + used, size - used, "\n    no callback failed: the `!` was never reached");
    } else if (log->wrong > 0) {
        snprintf(failures + used, size - used,
                 "\n    sk_callback_fail returned %s in %d call(s) (SK_OK in an operator's callback, "
                 "SK_ERR_UNSUPPORTED in a side effect's)",
                 sk_status_string(log->wrong_status), log->wrong);
    } else if (strchr(c->out, '#') && (log->received_count != 1 || !sk_value_equal(&log->received, &log->error))) {
        snprintf(failures + used, size - used,
                 "\n    the error received is not the one given to sk_callback_fail (%d error(s) received)",
                 log->received_count);
    }
}

/* Compares `recorder`'s diagram with `expected`; adds a line when they differ. */
static void compare_diagram(marble_case *c, sk_test_recorder *recorder, const char *expected, const char *who,
                            char *failures, size_t size) {
    char got[MAX_LINE];
    int status = sk_test_recorder_diagram(recorder, c->values, c->value_count, got, sizeof got, NULL);
    if (status != SK_OK) {
        snprintf(got, sizeof got, "(no diagram: %s)", sk_last_error_message());
    }
    if (strcmp(got, expected) != 0) {
        size_t used = strlen(failures);
        snprintf(failures + used, size - used, "\n    %s: expected %s, got %s", who, expected, got);
    }
}

/* `during`: the first input, whose latest subscriber the feed keeps. */
static void forward_next_fn(void *ctx, const sk_value *value) {
    SK_OK_OR_ABORT(sk_subscriber_put_next(ctx, value));
}

static void forward_error_fn(void *ctx, const sk_value *error) {
    SK_OK_OR_ABORT(sk_subscriber_put_error(ctx, error));
}

static void forward_completed_fn(void *ctx) {
    SK_OK_OR_ABORT(sk_subscriber_put_completion(ctx));
}

static void subscriber_release_fn(void *ctx) {
    sk_subscriber_release(ctx);
}

static sk_disposable *feed_generator_fn(void *ctx, sk_subscriber *subscriber) {
    feed_log *feed = ctx;
    sk_subscriber_release(feed->subscriber);
    feed->subscriber = sk_subscriber_retain(subscriber);
    sk_observer forward = {forward_next_fn, forward_error_fn, forward_completed_fn, sk_subscriber_retain(subscriber),
                           subscriber_release_fn};
    sk_disposable *started = NULL;
    SK_OK_OR_ABORT(sk_signal_start(&started, feed->upstream, &forward));
    return started;
}

static const sk_value *marble_value_of(const feed_log *feed, char symbol) {
    for (size_t i = 0; i < feed->value_count; i++) {
        if (feed->values[i].symbol == symbol) {
            return &feed->values[i].value;
        }
    }
    return NULL;
}

/* After the case's operators: the subscriber's first call with the
 * trigger's value puts the feed's values into the first input. */
static void feed_fn(void *ctx, const sk_value *value) {
    feed_log *feed = ctx;
    const sk_value *trigger = marble_value_of(feed, feed->trigger);
    if (feed->done || !trigger || !sk_value_equal(trigger, value)) {
        return;
    }
    feed->done = true;
    for (const char *p = feed->puts; *p; p++) {
        const sk_value *put = marble_value_of(feed, *p);
        cr_assert_not_null(put, "`during`: `%c` stands for no value", *p);
        SK_OK_OR_ABORT(sk_subscriber_put_next(feed->subscriber, put));
    }
}

/* `fails`: the failing subscriber forwards to the recorder's, then fails
 * at the trigger's value. */
typedef struct fails_call {
    fails_log *fails;
    sk_subscriber *downstream;
} fails_call;

static void fails_next_fn(void *ctx, const sk_value *value) {
    fails_call *call = ctx;
    SK_OK_OR_ABORT(sk_subscriber_put_next(call->downstream, value));
    fails_log *fails = call->fails;
    for (size_t i = 0; i < fails->value_count; i++) {
        if (fails->values[i].symbol == fails->trigger && sk_value_equal(&fails->values[i].value, value)) {
            fail_call(fails->log);
            return;
        }
    }
}

static void fails_error_fn(void *ctx, const sk_value *error) {
    SK_OK_OR_ABORT(sk_subscriber_put_error(((fails_call *)ctx)->downstream, error));
}

static void fails_completed_fn(void *ctx) {
    SK_OK_OR_ABORT(sk_subscriber_put_completion(((fails_call *)ctx)->downstream));
}

static void fails_release_fn(void *ctx) {
    fails_call *call = ctx;
    sk_subscriber_release(call->downstream);
    free(call);
}

static sk_disposable *fails_generator_fn(void *ctx, sk_subscriber *subscriber) {
    fails_call *call = malloc(sizeof *call);
    cr_assert_not_null(call);
    call->fails = ctx;
    call->downstream = sk_subscriber_retain(subscriber);
    sk_observer observer = {fails_next_fn, fails_error_fn, fails_completed_fn, call, fails_release_fn};
    sk_disposable *started = NULL;
    SK_OK_OR_ABORT(sk_signal_start_failable(&started, call->fails->upstream, &observer, 0));
    return started;
}

/* Between the case's signal and its subscribers, where the bounded
 * operator's policy ends the stream: keeps the first error received. */
static sk_signal *bounded_error_fn(void *ctx, const sk_value *error) {
    bounded_log *log = ctx;
    if (log->received_count++ == 0) {
        SK_OK_OR_ABORT(sk_value_copy(&log->received, error));
    }
    sk_signal *failing = NULL;
    SK_OK_OR_ABORT(sk_signal_fail(&failing, error));
    return failing;
}

/* Adds to `failures` an error received that is not the bounded operator's
 * overflow error (a string with its words). */
static void check_bounded_error(marble_case *c, char *failures, size_t size) {
    bounded_log *log = &c->bounded;
    const char *text = NULL;
    size_t length = 0;
    if (log->received_count != 1 || sk_value_get_string(&log->received, &text, &length) != SK_OK ||
        !strstr(text, log->expect)) {
        size_t used = strlen(failures);
        snprintf(failures + used, size - used, "\n    the error received is not the overflow error with \"%s\" "
                 "(%d error(s) received%s%s)", log->expect, log->received_count, text ? ": " : "", text ? text : "");
    }
}

/* Runs a read case; empty `failures` when every expectation holds. */
static void run_case(marble_case *c, char *failures, size_t size) {
    failures[0] = '\0';
    sk_value error;
    SK_OK_OR_FAIL(sk_value_set_string(&error, "marble error"));
    SK_OK_OR_FAIL(sk_value_set_string(&c->failures.error, "marble callback failure"));
    SK_OK_OR_FAIL(sk_queue_create_virtual(&c->queue, c->name));
    for (size_t i = 0; i < c->input_count; i++) {
        input *in = &c->inputs[i];
        int status = in->hot ? sk_test_signal_hot(&in->signal, &in->log, c->queue, FRAME, in->diagram, c->values,
                                                  c->value_count, &error)
                             : sk_test_signal_cold(&in->signal, &in->log, c->queue, FRAME, in->diagram, c->values,
                                                   c->value_count, &error);
        if (status != SK_OK) {
            snprintf(failures, size, "\n    input %s: %s", in->name, sk_last_error_message());
            goto cleanup;
        }
    }
    sk_signal *signal = sk_signal_retain(c->inputs[0].signal);
    if (c->feed.used) {
        c->feed.upstream = signal;
        c->feed.values = c->values;
        c->feed.value_count = c->value_count;
        signal = NULL;
        SK_OK_OR_FAIL(sk_signal_create(&signal, feed_generator_fn, &c->feed, NULL));
    }
    for (size_t i = 0; i < c->op_count; i++) {
        char why[512];
        char text[MAX_LINE];
        snprintf(text, sizeof text, "%s", c->op_text[i]);
        if (!apply(c, text, &signal, why, sizeof why)) {
            snprintf(failures, size, "\n    op %s: %s", c->op_text[i], why);
            sk_signal_release(signal);
            goto cleanup;
        }
    }
    if (c->feed.used) {
        sk_signal *fed = NULL;
        SK_OK_OR_FAIL(sk_signal_after_next(&fed, signal, feed_fn, &c->feed, NULL));
        sk_signal_release(signal);
        signal = fed;
    }
    if (c->fails.used) {
        c->fails.upstream = signal;
        c->fails.values = c->values;
        c->fails.value_count = c->value_count;
        c->fails.log = &c->failures;
        signal = NULL;
        SK_OK_OR_FAIL(sk_signal_create(&signal, fails_generator_fn, &c->fails, NULL));
    }
    if (c->failures.used) {
        sk_signal *checked = NULL;
        SK_OK_OR_FAIL(sk_signal_catch(&checked, signal, received_error_fn, &c->failures, NULL));
        sk_signal_release(signal);
        signal = checked;
    }
    if (c->bounded.expect) {
        sk_signal *checked = NULL;
        SK_OK_OR_FAIL(sk_signal_catch(&checked, signal, bounded_error_fn, &c->bounded, NULL));
        sk_signal_release(signal);
        signal = checked;
    }
    if (c->has_dropped && !c->bounded.used) {
        snprintf(failures, size, "\n    `dropped` in a case without a bounded operator");
        sk_signal_release(signal);
        goto cleanup;
    }
    if (c->bounded.used) {
        sk_signal *drops = NULL;
        SK_OK_OR_FAIL(sk_pipe_create(&c->bounded.drops, false));
        SK_OK_OR_FAIL(sk_pipe_signal(&drops, c->bounded.drops));
        SK_OK_OR_FAIL(sk_test_record(&c->bounded.recorder, drops, c->queue, FRAME));
        sk_signal_release(drops);
    }
    sk_test_recorder *recorder = NULL;
    SK_OK_OR_FAIL(sk_test_record(&recorder, signal, c->queue, FRAME));
    if (c->dispose_at >= 0) {
        SK_OK_OR_FAIL(sk_queue_after(c->queue, (double)c->dispose_at * FRAME, dispose_recorder_fn, &recorder, NULL));
    }
    for (size_t i = 0; i < c->also_count; i++) {
        also_start *start = malloc(sizeof *start);
        cr_assert_not_null(start);
        start->line = &c->also[i];
        start->signal = sk_signal_retain(signal);
        start->queue = c->queue;
        SK_OK_OR_FAIL(sk_queue_after(c->queue, (double)c->also[i].from * FRAME, also_start_fn, start,
                                     also_start_release));
        if (c->also[i].to >= 0) {
            SK_OK_OR_FAIL(sk_queue_after(c->queue, (double)c->also[i].to * FRAME, dispose_recorder_fn,
                                         &c->also[i].recorder, NULL));
        }
    }
    sk_signal_release(signal);
    size_t ran = 0;
    const size_t most = 100000;
    SK_OK_OR_FAIL(sk_queue_virtual_run(c->queue, most, &ran));
    if (ran == most) {
        size_t used = strlen(failures);
        snprintf(failures + used, size - used, "\n    the queue still had work after %zu tasks", most);
    }
    compare_diagram(c, recorder, c->out, "out", failures, size);
    if (c->bounded.used) {
        compare_diagram(c, c->bounded.recorder, c->has_dropped ? c->dropped : "", "dropped", failures, size);
    }
    if (c->bounded.expect && strchr(c->out, '#')) {
        check_bounded_error(c, failures, size);
    }
    for (size_t i = 0; i < c->also_count; i++) {
        char who[32];
        snprintf(who, sizeof who, "also %zu", i + 1);
        if (!c->also[i].recorder) {
            size_t used = strlen(failures);
            snprintf(failures + used, size - used, "\n    %s never subscribed", who);
            continue;
        }
        compare_diagram(c, c->also[i].recorder, c->also[i].diagram, who, failures, size);
    }
    /* The subscription logs of the inputs named by `sub` lines. */
    for (size_t i = 0; i < c->input_count; i++) {
        char expected[MAX_LINE] = "";
        bool named = false;
        for (size_t j = 0; j < c->sub_count; j++) {
            if (strcmp(c->subs[j].input, c->inputs[i].name) != 0) {
                continue;
            }
            named = true;
            if (c->subs[j].from < 0) {
                continue;
            }
            size_t used = strlen(expected);
            if (c->subs[j].to >= 0) {
                snprintf(expected + used, sizeof expected - used, "%s^%ld !%ld", used ? " " : "", c->subs[j].from,
                         c->subs[j].to);
            } else {
                snprintf(expected + used, sizeof expected - used, "%s^%ld", used ? " " : "", c->subs[j].from);
            }
        }
        if (!named) {
            continue;
        }
        char got[MAX_LINE];
        SK_OK_OR_FAIL(sk_test_subscriptions_text(c->inputs[i].log, got, sizeof got, NULL));
        if (strcmp(got, expected) != 0) {
            size_t used = strlen(failures);
            snprintf(failures + used, size - used, "\n    subscriptions of %s: expected \"%s\", got \"%s\"",
                     c->inputs[i].name, expected, got);
        }
    }
    sk_test_recorder_dispose(recorder);
    sk_test_recorder_release(recorder);
    for (size_t i = 0; i < c->also_count; i++) {
        sk_test_recorder_dispose(c->also[i].recorder);
        sk_test_recorder_release(c->also[i].recorder);
    }
    /* After the disposals: afterDisposed's function runs in them. */
    if (c->failures.used) {
        check_failures(c, failures, size);
    }
cleanup:
    if (c->bounded.recorder) {
        sk_test_recorder_dispose(c->bounded.recorder);
        sk_test_recorder_release(c->bounded.recorder);
    }
    sk_pipe_release(c->bounded.drops);
    for (size_t i = 0; i < c->bounded.host_count; i++) {
        sk_queue_release(c->bounded.hosts[i]);
    }
    sk_value_release(&c->bounded.received);
    sk_subscriber_release(c->feed.subscriber);
    sk_signal_release(c->feed.upstream);
    sk_signal_release(c->fails.upstream);
    for (size_t i = 0; i < c->input_count; i++) {
        sk_signal_release(c->inputs[i].signal);
        sk_test_subscriptions_release(c->inputs[i].log);
    }
    sk_queue_release(c->queue);
    sk_value_release(&error);
    sk_value_release(&c->failures.error);
    sk_value_release(&c->failures.received);
}

/* Reads and runs every case of `path`; returns the report. */
static void run_file(const char *path, report *r) {
    FILE *file = fopen(path, "r");
    if (!file) {
        report_add(r, "%s: cannot be opened: %s\n", path, strerror(errno));
        r->failed++;
        return;
    }
    marble_case *c = calloc(1, sizeof *c);
    cr_assert_not_null(c);
    case_clear(c);
    bool in_case = false;
    bool broken = false;
    char line[MAX_LINE + 64];
    int number = 0;
    while (fgets(line, sizeof line, file)) {
        number++;
        line[strcspn(line, "\r\n")] = '\0';
        char copy[sizeof line];
        snprintf(copy, sizeof copy, "%s", line);
        words w;
        split_words(copy, &w);
        if (w.count == 0 || w.word[0][0] == '#') {
            continue;
        }
        const char *key = w.word[0];
        /* The rest of the line after the first `skip` words. */
        const char *rest = w.count > 1 ? line + (w.word[1] - copy) : "";
        if (strcmp(key, "case") == 0) {
            if (in_case || w.count != 2) {
                report_add(r, "%s:%d: `case` inside a case, or without a name\n", path, number);
                r->failed++;
                broken = true;
                continue;
            }
            case_clear(c);
            in_case = true;
            broken = false;
            snprintf(c->file, sizeof c->file, "%s", path);
            snprintf(c->name, sizeof c->name, "%s", w.word[1]);
            c->line = number;
            /* A digit stands for itself. */
            for (char digit = '0'; digit <= '9'; digit++) {
                sk_value value;
                sk_value_set_int64(&value, digit - '0');
                set_value(c, digit, &value);
            }
            continue;
        }
        if (!in_case) {
            report_add(r, "%s:%d: `%s` outside a case\n", path, number, key);
            r->failed++;
            continue;
        }
        if (broken) {
            if (strcmp(key, "end") == 0) {
                in_case = false;
            }
            continue;
        }
        bool ok = true;
        if (strcmp(key, "in") == 0 || strcmp(key, "hot") == 0) {
            ok = w.count >= 3 && c->input_count < MAX_INPUTS;
            if (ok) {
                input *in = &c->inputs[c->input_count++];
                snprintf(in->name, sizeof in->name, "%s", w.word[1]);
                snprintf(in->diagram, sizeof in->diagram, "%s", line + (w.word[2] - copy));
                in->hot = key[0] == 'h';
            }
        } else if (strcmp(key, "value") == 0) {
            sk_value value;
            ok = w.count == 3 && strlen(w.word[1]) == 1 && parse_value(w.word[2], &value);
            if (ok && !set_value(c, w.word[1][0], &value)) {
                sk_value_release(&value);
                ok = false;
            }
        } else if (strcmp(key, "op") == 0) {
            ok = w.count >= 2 && c->op_count < MAX_OPS;
            if (ok) {
                snprintf(c->op_text[c->op_count++], MAX_LINE, "%s", rest);
            }
        } else if (strcmp(key, "out") == 0) {
            ok = w.count == 2 && !c->has_out;
            if (ok) {
                snprintf(c->out, sizeof c->out, "%s", w.word[1]);
                c->has_out = true;
            }
        } else if (strcmp(key, "sub") == 0) {
            ok = c->sub_count < MAX_SUBS && (w.count == 3 || w.count == 4);
            if (ok) {
                sub_line *s = &c->subs[c->sub_count++];
                snprintf(s->input, sizeof s->input, "%s", w.word[1]);
                if (w.count == 3) {
                    ok = strcmp(w.word[2], "never") == 0;
                    s->from = -1;
                    s->to = -1;
                } else {
                    ok = parse_frame(w.word[2], &s->from) && s->from >= 0 && parse_frame(w.word[3], &s->to);
                }
            }
        } else if (strcmp(key, "dropped") == 0) {
            ok = w.count == 2 && !c->has_dropped;
            if (ok) {
                snprintf(c->dropped, sizeof c->dropped, "%s", w.word[1]);
                c->has_dropped = true;
            }
        } else if (strcmp(key, "during") == 0) {
            ok = w.count == 3 && strlen(w.word[1]) == 1 && !c->feed.used;
            if (ok) {
                c->feed.used = true;
                c->feed.trigger = w.word[1][0];
                snprintf(c->feed.puts, sizeof c->feed.puts, "%s", w.word[2]);
            }
        } else if (strcmp(key, "fails") == 0) {
            ok = w.count == 2 && strlen(w.word[1]) == 1 && !c->fails.used;
            if (ok) {
                c->fails.used = true;
                c->fails.trigger = w.word[1][0];
                c->failures.used = true;
            }
        } else if (strcmp(key, "dispose") == 0) {
            ok = w.count == 2 && parse_frame(w.word[1], &c->dispose_at) && c->dispose_at >= 0;
        } else if (strcmp(key, "also") == 0) {
            ok = w.count == 4 && c->also_count < MAX_ALSO;
            if (ok) {
                also_line *a = &c->also[c->also_count++];
                ok = parse_frame(w.word[1], &a->from) && a->from >= 0 && parse_frame(w.word[2], &a->to);
                snprintf(a->diagram, sizeof a->diagram, "%s", w.word[3]);
            }
        } else if (strcmp(key, "end") == 0) {
            in_case = false;
            if (!c->has_out || c->input_count == 0) {
                report_add(r, "%s:%d: case %s has no `out` or no input\n", path, c->line, c->name);
                r->failed++;
                continue;
            }
            for (size_t i = 0; i < c->sub_count; i++) {
                if (!find_input(c, c->subs[i].input)) {
                    report_add(r, "%s:%d: case %s: `sub` names no input `%s`\n", path, c->line, c->name,
                               c->subs[i].input);
                    r->failed++;
                    goto next_line;
                }
            }
            char failures[2048];
            run_case(c, failures, sizeof failures);
            if (failures[0]) {
                report_add(r, "%s:%d: case %s:%s\n", path, c->line, c->name, failures);
                r->failed++;
            } else {
                r->passed++;
            }
            continue;
        } else {
            ok = false;
        }
        if (!ok) {
            report_add(r, "%s:%d: a line this runner cannot read (case %s): %s\n", path, number, c->name, line);
            r->failed++;
            broken = true;
        }
    next_line:;
    }
    if (in_case) {
        report_add(r, "%s: case %s has no `end`\n", path, c->name);
        r->failed++;
    }
    case_clear(c);
    free(c);
    fclose(file);
}

static const char *marbles_dir(void) {
    const char *dir = getenv("SK_MARBLES_DIR");
    return dir && dir[0] ? dir : "Tests/marbles";
}

/* The table's files, each run by a test of its own below. */
static const char *const FILES[] = {"catch",  "combine", "dispatch",     "failure", "mapping",
                                     "reduce", "share",   "side_effects", "take",    "timing"};

static void run_table_file(const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.marbles", marbles_dir(), name);
    report r = {0};
    run_file(path, &r);
    expect_no_live_objects(0);
    cr_assert(r.failed == 0 && r.passed > 0, "%s: %d case(s) passed, %d failed:\n%s", path, r.passed, r.failed,
              r.text);
}

Test(marble_table, catch_cases, .timeout = SK_TEST_TIMEOUT) { run_table_file("catch"); }
Test(marble_table, combine_cases, .timeout = SK_TEST_TIMEOUT) { run_table_file("combine"); }
Test(marble_table, dispatch_cases, .timeout = SK_TEST_TIMEOUT) { run_table_file("dispatch"); }
Test(marble_table, failure_cases, .timeout = SK_TEST_TIMEOUT) { run_table_file("failure"); }
Test(marble_table, mapping_cases, .timeout = SK_TEST_TIMEOUT) { run_table_file("mapping"); }
Test(marble_table, reduce_cases, .timeout = SK_TEST_TIMEOUT) { run_table_file("reduce"); }
Test(marble_table, share_cases, .timeout = SK_TEST_TIMEOUT) { run_table_file("share"); }
Test(marble_table, side_effects_cases, .timeout = SK_TEST_TIMEOUT) { run_table_file("side_effects"); }
Test(marble_table, take_cases, .timeout = SK_TEST_TIMEOUT) { run_table_file("take"); }
Test(marble_table, timing_cases, .timeout = SK_TEST_TIMEOUT) { run_table_file("timing"); }

/* The runner's report on a table written here, in a file of its own. */
static report run_text(const char *text) {
    char path[] = "/tmp/sk_marble_table_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0, "mkstemp: %s", strerror(errno));
    FILE *file = fdopen(fd, "w");
    cr_assert_not_null(file);
    fputs(text, file);
    fclose(file);
    report r = {0};
    run_file(path, &r);
    remove(path);
    return r;
}

/* A wrong `dropped` line fails, and so does an error that is not the
 * overflow error where the policy is error. */
Test(marble_table, the_runner_checks_drops_and_the_overflow_error, .timeout = SK_TEST_TIMEOUT) {
    const char *head = "case d\nin a -1-----6|\nduring 1 2345\n";
    char text[512];
    snprintf(text, sizeof text, "%sop onBackpressureBuffer 2 dropNewest\nout -(123)-----6|\ndropped -(45)\nend\n",
             head);
    report r = run_text(text);
    cr_assert(r.passed == 1 && r.failed == 0, "%s", r.text);
    snprintf(text, sizeof text, "%sop onBackpressureBuffer 2 dropNewest\nout -(123)-----6|\ndropped -(44)\nend\n",
             head);
    r = run_text(text);
    cr_assert(r.failed == 1 && strstr(r.text, "dropped: expected -(44), got -(45)"), "%s", r.text);
    r = run_text("case e\nin a -1-#\nop onBackpressureBuffer 2 error\nout -1-#\nend\n");
    cr_assert(r.failed == 1 && strstr(r.text, "not the overflow error"), "%s", r.text);
    expect_no_live_objects(0);
}

/* Every file of the folder is one of the above: a new file must get its test. */
Test(marble_table, every_file_of_the_table_is_run, .timeout = SK_TEST_TIMEOUT) {
    DIR *dir = opendir(marbles_dir());
    cr_assert_not_null(dir, "%s cannot be opened: %s", marbles_dir(), strerror(errno));
    size_t found = 0;
    for (struct dirent *entry = readdir(dir); entry; entry = readdir(dir)) {
        size_t length = strlen(entry->d_name);
        if (length < 8 || strcmp(entry->d_name + length - 8, ".marbles") != 0) {
            continue;
        }
        bool known = false;
        for (size_t i = 0; i < sizeof FILES / sizeof FILES[0]; i++) {
            known = known || (strlen(FILES[i]) == length - 8 && strncmp(FILES[i], entry->d_name, length - 8) == 0);
        }
        cr_expect(known, "%s/%s has no Test() in Tests/C/test_marble_table.c", marbles_dir(), entry->d_name);
        found++;
    }
    closedir(dir);
    cr_assert_eq(found, sizeof FILES / sizeof FILES[0]);
}
