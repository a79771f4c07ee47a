/* Comparing a value with an object pointer says what constructing one says
 * (value::pointer(p) for a user pointer), rather than comparing a bool. */
// expect: use signalkit::value::pointer(p) for a user pointer
#include <signalkit.hpp>
int main() {
    static int x = 0;
    signalkit::value v = signalkit::value::pointer(&x);
    return v == &x ? 0 : 1;
}
