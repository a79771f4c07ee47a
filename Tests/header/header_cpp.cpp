/*
 * signalkit.h alone, as a C++ program sees it (make test-header): this file
 * must compile as C++11 with -Wall -Wextra -pedantic -Werror and nothing but
 * include/ on the include path. It touches the header's inline functions and
 * a few declarations, so that a header that declared them wrongly for C++
 * (casts from void *, designated initialisers, no extern "C") would not
 * compile. Compiled only, never linked.
 */
#include <signalkit.h>

int header_cpp_uses_the_declarations();

int header_cpp_uses_the_declarations() {
    sk_value value;
    sk_value_set_int64(&value, 1);
    int status = sk_value_set_string(&value, "text");
    sk_value_release(&value);
    return status == SK_OK && sk_status_string(status) != nullptr && sk_version_number() > 0;
}
