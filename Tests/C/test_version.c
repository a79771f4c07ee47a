/* test_version.c - the version macros agree with the library loaded at run time. */
#include <stdio.h>
#include <string.h>

#include "support.h"

Test(version, number_matches_macros, .timeout = SK_TEST_TIMEOUT) {
    cr_assert_eq(SK_VERSION_NUMBER, SK_VERSION_MAJOR * 10000 + SK_VERSION_MINOR * 100 + SK_VERSION_PATCH);
    cr_assert_eq(sk_version_number(), (unsigned)SK_VERSION_NUMBER,
                 "library %u, header %d", sk_version_number(), SK_VERSION_NUMBER);
}

Test(version, string_matches_macros, .timeout = SK_TEST_TIMEOUT) {
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", SK_VERSION_MAJOR, SK_VERSION_MINOR, SK_VERSION_PATCH);
    const char *version = sk_version_string();
    cr_assert_not_null(version);
    cr_assert_str_eq(version, expected);
    /* A static string: the same one every time. */
    cr_assert_eq(sk_version_string(), version);
}

Test(version, at_least, .timeout = SK_TEST_TIMEOUT) {
    cr_assert(SK_VERSION_AT_LEAST(SK_VERSION_MAJOR, SK_VERSION_MINOR, SK_VERSION_PATCH));
    cr_assert(SK_VERSION_AT_LEAST(0, 0, 0));
    cr_assert(!SK_VERSION_AT_LEAST(SK_VERSION_MAJOR, SK_VERSION_MINOR, SK_VERSION_PATCH + 1));
    cr_assert(!SK_VERSION_AT_LEAST(SK_VERSION_MAJOR, SK_VERSION_MINOR + 1, 0));
    cr_assert(!SK_VERSION_AT_LEAST(SK_VERSION_MAJOR + 1, 0, 0));
    if (SK_VERSION_MINOR > 0) {
        cr_assert(SK_VERSION_AT_LEAST(SK_VERSION_MAJOR, SK_VERSION_MINOR - 1, 99));
    }
}

static void *version_on_thread(void *arg) {
    const char **out = arg;
    out[0] = sk_version_string();
    out[1] = sk_version_number() == (unsigned)SK_VERSION_NUMBER ? "same" : "different";
    return NULL;
}

Test(version, same_on_another_thread, .timeout = SK_TEST_TIMEOUT) {
    const char *seen[2] = { NULL, NULL };
    pthread_t thread;
    cr_assert_eq(pthread_create(&thread, NULL, version_on_thread, seen), 0);
    pthread_join(thread, NULL);
    cr_assert_eq(seen[0], sk_version_string());
    cr_assert_str_eq(seen[1], "same");
    cr_assert_eq(sk_live_objects(), 0);
}
