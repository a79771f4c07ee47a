/*
 * check.h - what the soaks of this folder share: CHECK(call) runs a
 * signalkit call that must succeed and, when it fails, prints the soak's
 * name (SOAK_NAME, defined before this header is included), the call and
 * the library's words, and exits with status 2: the soak's own set-up
 * failing is not what the soak measures.
 */
#ifndef SIGNALKIT_SOAK_CHECK_H
#define SIGNALKIT_SOAK_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "signalkit.h"

#ifndef SOAK_NAME
#error "define SOAK_NAME (the soak's name, a string) before including check.h"
#endif

#define CHECK(call)                                                            \
    do {                                                                       \
        int status_ = (call);                                                  \
        if (status_ != SK_OK) {                                                \
            fprintf(stderr, SOAK_NAME ": %s failed: %s (%s)\n", #call,         \
                    sk_status_string(status_), sk_last_error_message());       \
            exit(2);                                                           \
        }                                                                      \
    } while (0)

#endif
