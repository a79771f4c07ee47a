/*
 * combine.c - state from several sources: combine-latest over a value
 * promise (the display unit, set rarely) and a pipe of sensor readings, and
 * merge of two alert pipes.
 *
 * Build: cc combine.c $(pkg-config --cflags --libs signalkit) -o combine
 */
#include <stdio.h>
#include <stdlib.h>

#include <signalkit.h>

#define CHECK(call)                                                            \
    do {                                                                       \
        int status_ = (call);                                                  \
        if (status_ != SK_OK) {                                                \
            fprintf(stderr, "%s failed: %s (%s)\n", #call,                      \
                    sk_status_string(status_), sk_last_error_message());       \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

/* Each combination is an array: [unit (string), celsius (double)]. */
static void show_reading(void *ctx, const sk_value *value) {
    const sk_value *items; /* the pair's two items, borrowed from it */
    const char *unit = "?";
    double celsius = 0;
    (void)ctx;
    sk_value_get_array_items(value, &items, NULL);
    sk_value_get_string(&items[0], &unit, NULL);
    sk_value_get_double(&items[1], &celsius);
    if (unit[0] == 'F') {
        printf("reading: %.1f F\n", celsius * 9 / 5 + 32);
    } else {
        printf("reading: %.1f C\n", celsius);
    }
}

static void show_alert(void *ctx, const sk_value *value) {
    const char *text = "";
    printf("alert from %s: ", (const char *)ctx);
    sk_value_get_string(value, &text, NULL);
    printf("%s\n", text);
}

static void put_double(sk_pipe *pipe, double x) {
    sk_value v;
    sk_value_set_double(&v, x);
    CHECK(sk_pipe_put(pipe, &v));
}

static void put_string(sk_pipe *pipe, const char *text) {
    sk_value v;
    CHECK(sk_value_set_string(&v, text));
    CHECK(sk_pipe_put(pipe, &v));
    sk_value_release(&v);
}

static void set_unit(sk_value_promise *unit, const char *text) {
    sk_value v;
    CHECK(sk_value_set_string(&v, text));
    CHECK(sk_value_promise_set(unit, &v));
    sk_value_release(&v);
}

int main(void) {
    /* The unit: a value promise that ignores a repeated value. */
    sk_value celsius_unit;
    CHECK(sk_value_set_string(&celsius_unit, "C"));
    sk_value_promise *unit;
    CHECK(sk_value_promise_create(&unit, &celsius_unit, true));
    sk_value_release(&celsius_unit);

    sk_pipe *sensor;
    CHECK(sk_pipe_create(&sensor, false));

    sk_signal *inputs[2];
    CHECK(sk_value_promise_get(&inputs[0], unit));
    CHECK(sk_pipe_signal(&inputs[1], sensor));
    sk_signal *combined;
    CHECK(sk_signal_combine_latest(&combined, inputs, 2, NULL));
    sk_observer reading = { show_reading, NULL, NULL, NULL, NULL };
    sk_disposable *readings;
    CHECK(sk_signal_start(&readings, combined, &reading));

    put_double(sensor, 21.5);  /* reading: 21.5 C */
    put_double(sensor, 22.0);  /* reading: 22.0 C */
    set_unit(unit, "F");       /* reading: 71.6 F (the latest reading, again) */
    set_unit(unit, "F");       /* ignored: the same unit */
    put_double(sensor, 23.0);  /* reading: 73.4 F */

    /* Two alert sources, merged into one subscription. */
    sk_pipe *disk, *network;
    CHECK(sk_pipe_create(&disk, false));
    CHECK(sk_pipe_create(&network, false));
    sk_signal *alerts[2];
    CHECK(sk_pipe_signal(&alerts[0], disk));
    CHECK(sk_pipe_signal(&alerts[1], network));
    sk_signal *merged;
    CHECK(sk_signal_merge(&merged, alerts, 2));
    sk_observer alert = { show_alert, NULL, NULL, "merged", NULL };
    sk_disposable *alerting;
    CHECK(sk_signal_start(&alerting, merged, &alert));
    put_string(disk, "disk 91% full");
    put_string(network, "link down");
    put_string(disk, "disk 95% full");

    sk_disposable_dispose(alerting);
    sk_disposable_release(alerting);
    sk_disposable_dispose(readings);
    sk_disposable_release(readings);
    sk_signal_release(merged);
    sk_signal_release(alerts[0]);
    sk_signal_release(alerts[1]);
    sk_pipe_release(disk);
    sk_pipe_release(network);
    sk_signal_release(combined);
    sk_signal_release(inputs[0]);
    sk_signal_release(inputs[1]);
    sk_pipe_release(sensor);
    sk_value_promise_release(unit);
    printf("live objects left: %ld\n", sk_live_objects());
    return 0;
}
