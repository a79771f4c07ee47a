/* A function pointer is not a value either (it converted to bool true). */
// expect: use signalkit::value::pointer(p) for a user pointer
#include <signalkit.hpp>
static void callback() {}
int main() {
    void (*f)() = &callback;
    signalkit::value v(f);
    (void)v;
}
