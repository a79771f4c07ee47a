/*
 * signalkit_ffi.h alone (it includes signalkit.h and nothing else), as a C
 * program sees it (make test-header): C++11 with -Wall -Wextra -pedantic
 * -Werror and nothing but include/ on the include path. Compiled only,
 * never linked.
 */
#include <signalkit_ffi.h>

int header_ffi_cpp_uses_the_declarations();

int header_ffi_cpp_uses_the_declarations() {
    sk_ffi_signature *signature = nullptr;
    int status = sk_ffi_signature_parse(&signature, "i64(i64)");
    sk_ffi_signature_release(signature);
    return status == SK_OK && sk_ffi_last_error_message() != nullptr;
}
