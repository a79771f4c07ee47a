/* A wide string literal is not a user pointer: the pointer message sent the
 * user to value::pointer(p); the header says a value's text is UTF-8. */
// expect: is not text: a value's text is UTF-8
#include <signalkit.hpp>
int main() {
    signalkit::value v(L"text");
    (void)v;
}
