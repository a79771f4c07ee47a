/* jetstream.c - what sk_nats_js_consume() and sk_nats_js_publish() share:
 * the part of the user's jsOptions they keep for the JetStream context each
 * start makes. */
#include <stdlib.h>

#include "internal.h"

bool sk_nats__js_options_copy(sk_nats__js_options *out, const jsOptions *options) {
    out->prefix = NULL;
    out->domain = NULL;
    out->wait = 0;
    if (options == NULL) {
        return true;
    }
    bool failed = false;
    out->prefix = sk_nats__strdup(options->Prefix, &failed);
    out->domain = sk_nats__strdup(options->Domain, &failed);
    out->wait = options->Wait;
    if (failed) {
        sk_nats__js_options_free(out);
        return false;
    }
    return true;
}

void sk_nats__js_options_free(sk_nats__js_options *options) {
    free(options->prefix);
    free(options->domain);
    options->prefix = NULL;
    options->domain = NULL;
}

void sk_nats__js_options_apply(const sk_nats__js_options *options, jsOptions *to) {
    jsOptions_Init(to);
    to->Prefix = options->prefix;
    to->Domain = options->domain;
    to->Wait = options->wait;
}
