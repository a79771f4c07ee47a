/* main.c - a user's program built against the installed bridge, through
 * signalkit-nats.pc and through the CMake package SignalKitNATS (make
 * test-nats, Tests/nats/package/CMakeLists.txt): it compiles against
 * signalkit_nats.h, links libsignalkit-nats, libsignalkit and libnats, and
 * gets a refused call's message. */
#include <stdio.h>
#include <string.h>

#include <signalkit_nats.h>

int main(void) {
    sk_signal *signal = NULL;
    int status = sk_nats_js_consume(&signal, NULL, NULL, "S", "d", "s.>", SK_NATS_PAYLOAD, SK_NATS_ACK_AFTER_NEXT,
                                    NULL, 1);
    const char *message = sk_nats_last_error_message();
    if (status != SK_ERR_NULL_ARGUMENT || strcmp(message, "sk_nats_js_consume: connection is NULL") != 0) {
        fprintf(stderr, "unexpected: %d \"%s\"\n", status, message);
        return 1;
    }
    printf("signalkit-nats %d.%d over libnats %s and SignalKit %s: \"%s\"\n", SK_NATS_VERSION_MAJOR,
           SK_NATS_VERSION_MINOR, nats_GetVersion(), sk_version_string(), message);
    return 0;
}
