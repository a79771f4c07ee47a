/* The Swift runtime's stop when malloc refuses one of its allocations.
 *
 * signalkit.h (SK_ERR_NO_MEMORY) promises that the library's objects, which
 * the Swift runtime allocates, stop the process with SIGABRT when malloc
 * refuses one. The runtime's own stop (swift::swift_abortAllocationFailure)
 * formats its message with vasprintf, which with no memory left fails: the
 * runtime then printed a NULL message and the process ended with SIGSEGV
 * (a tester's program, 12 of 12 runs, in sk_value_set_string,
 * sk_value_set_bytes and sk_pipe_create).
 *
 * The release library links the Swift runtime statically and with
 * `--wrap=_ZN5swift28swift_abortAllocationFailureEmm` (Makefile,
 * RELEASE_FLAGS), so that stop comes here: the message is made in a buffer
 * on the stack and written with write(2), and abort() stops the process.
 * Nothing here allocates.
 *
 * The debug and sanitizer builds link the Swift runtime as a shared
 * library: there nothing is wrapped and this function is never called.
 */
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

void __wrap__ZN5swift28swift_abortAllocationFailureEmm(size_t size, size_t alignment_mask) __attribute__((noreturn));

/* Appends the decimal digits of `number` to `text` at `*length`. */
static void append_number(char *text, size_t *length, size_t capacity, size_t number) {
    char digits[24];
    size_t count = 0;
    do {
        digits[count++] = (char)('0' + number % 10);
        number /= 10;
    } while (number != 0);
    while (count > 0 && *length < capacity) {
        text[(*length)++] = digits[--count];
    }
}

/* Appends the NUL-terminated `part` to `text` at `*length`. */
static void append_text(char *text, size_t *length, size_t capacity, const char *part) {
    while (*part != '\0' && *length < capacity) {
        text[(*length)++] = *part++;
    }
}

void __wrap__ZN5swift28swift_abortAllocationFailureEmm(size_t size, size_t alignment_mask) {
    char text[200];
    size_t length = 0;
    append_text(text, &length, sizeof text, "signalkit: fatal error: out of memory: the system refused ");
    append_number(text, &length, sizeof text, size);
    append_text(text, &length, sizeof text, " bytes (alignment ");
    append_number(text, &length, sizeof text, alignment_mask + 1);
    append_text(text, &length, sizeof text, ") for a library object; stopping the process\n");
    size_t written = 0;
    while (written < length) {
        ssize_t result = write(STDERR_FILENO, text + written, length - written);
        if (result <= 0) {
            break;
        }
        written += (size_t)result;
    }
    abort();
}
