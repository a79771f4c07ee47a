/*
 * demo.h - what the NATS demonstration's two processes share: the names,
 * the check of every call, the connection and the JetStream stream.
 *
 * The stream READINGS keeps the subjects readings.>; the consumer reads
 * readings.temperature through the durable consumer "averager". Both
 * processes create the stream (the same configuration: the second call
 * changes nothing), so either may start first.
 */
#ifndef SIGNALKIT_NATS_DEMO_H
#define SIGNALKIT_NATS_DEMO_H

#include <stdio.h>
#include <stdlib.h>

#include <signalkit_nats.h>

#define DEMO_STREAM "READINGS"
#define DEMO_SUBJECT "readings.temperature"
#define DEMO_DURABLE "averager"

/* A refused sk_ call: its message (the bridge's or the core's), then exit. */
#define DEMO_CHECK(call)                                                                                  \
    do {                                                                                                  \
        int status_ = (call);                                                                             \
        if (status_ != SK_OK) {                                                                           \
            fprintf(stderr, "%s failed: %s (%s; %s)\n", #call, sk_status_string(status_),                \
                    sk_nats_last_error_message(), sk_last_error_message());                               \
            exit(1);                                                                                      \
        }                                                                                                 \
    } while (0)

/* A connection to `url` that reconnects (libnats's defaults), and the
 * stream READINGS created on it. */
static inline natsConnection *demo_connect(const char *url) {
    natsConnection *connection = NULL;
    natsStatus status = natsConnection_ConnectTo(&connection, url);
    if (status != NATS_OK) {
        fprintf(stderr, "cannot connect to %s: %s\n", url, natsStatus_GetText(status));
        exit(1);
    }
    jsCtx *js = NULL;
    jsStreamConfig config;
    jsErrCode code = 0;
    const char *subjects[] = { "readings.>" };
    jsStreamConfig_Init(&config);
    config.Name = DEMO_STREAM;
    config.Subjects = subjects;
    config.SubjectsLen = 1;
    config.Storage = js_FileStorage;
    status = natsConnection_JetStream(&js, connection, NULL);
    if (status == NATS_OK) {
        status = js_AddStream(NULL, js, &config, NULL, &code);
    }
    jsCtx_Destroy(js);
    if (status != NATS_OK) {
        fprintf(stderr, "cannot create the stream %s: %s (%s, JetStream error %d)\n", DEMO_STREAM,
                natsStatus_GetText(status), nats_GetLastError(NULL), (int)code);
        exit(1);
    }
    return connection;
}

#endif
