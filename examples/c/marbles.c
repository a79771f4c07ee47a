/* marbles.c - the marble test of docs/testing.md in C: debounce on virtual time. */
#include <signalkit_test.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    const double frame = 0.001; /* a frame is 1 ms of virtual time */
    const char *expected = "------b-----(c|)";
    sk_queue *queue;
    sk_signal *keys, *debounced;
    sk_test_subscriptions *subscriptions;
    sk_test_recorder *results;
    char actual[64], log[64];

    sk_queue_create_virtual(&queue, "test");
    sk_test_signal_cold(&keys, &subscriptions, queue, frame, "-a-b-------c|", NULL, 0, NULL);
    sk_signal_debounce(&debounced, keys, 3 * frame, queue);
    sk_test_record(&results, debounced, queue, frame);
    sk_queue_virtual_run(queue, 0, NULL); /* no real clock: microseconds */
    sk_test_recorder_diagram(results, NULL, 0, actual, sizeof actual, NULL);
    sk_test_subscriptions_text(subscriptions, log, sizeof log, NULL);
    printf("expected: %s\nactual:   %s\nsubscriptions: %s\n", expected, actual, log);

    sk_test_recorder_release(results);
    sk_test_subscriptions_release(subscriptions);
    sk_signal_release(debounced);
    sk_signal_release(keys);
    sk_queue_release(queue);
    return strcmp(actual, expected) == 0 && strcmp(log, "^0 !12") == 0 ? 0 : 1;
}
