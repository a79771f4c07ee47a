#include "../../include/signalkit.h"

/* The version functions are made from the header's macros, which
 * tools/check/check-version.py holds to the file VERSION: the library reports the
 * version of the header it was built with. */
#define SK__TEXT(x) #x
#define SK__NUMBER_TEXT(x) SK__TEXT(x)

unsigned sk_version_number(void) {
    return SK_VERSION_NUMBER;
}

const char *sk_version_string(void) {
    return SK__NUMBER_TEXT(SK_VERSION_MAJOR) "." SK__NUMBER_TEXT(SK_VERSION_MINOR) "." SK__NUMBER_TEXT(SK_VERSION_PATCH);
}
