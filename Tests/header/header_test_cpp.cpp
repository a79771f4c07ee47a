/*
 * signalkit_test.h alone (it includes signalkit.h and nothing else), as a C
 * program sees it (make test-header): C++11 with -Wall -Wextra -pedantic
 * -Werror and nothing but include/ on the include path. Compiled only,
 * never linked.
 */
#include <signalkit_test.h>

int header_test_cpp_uses_the_declarations();

int header_test_cpp_uses_the_declarations() {
    sk_queue *queue = nullptr;
    sk_signal *signal = nullptr;
    sk_test_recorder *recorder = nullptr;
    sk_marble_value values[1];
    char diagram[16];
    size_t ran = 0;
    int status = sk_queue_create_virtual(&queue, "header");
    values[0].symbol = 'a';
    sk_value_set_int64(&values[0].value, 1);
    status |= sk_test_signal_cold(&signal, nullptr, queue, 0.001, "-a|", values, 1, nullptr);
    status |= sk_test_record(&recorder, signal, queue, 0.001);
    status |= sk_queue_virtual_run(queue, 0, &ran);
    status |= sk_test_recorder_diagram(recorder, values, 1, diagram, sizeof diagram, nullptr);
    sk_test_recorder_release(recorder);
    sk_signal_release(signal);
    sk_queue_release(queue);
    return status == SK_OK && ran > 0;
}
