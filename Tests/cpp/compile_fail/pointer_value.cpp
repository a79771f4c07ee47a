/* An object pointer is not a value (it converted to bool true). */
// expect: use signalkit::value::pointer(p) for a user pointer
#include <signalkit.hpp>
struct widget {
    int id;
};
int main() {
    static widget w{7};
    widget *p = &w;
    signalkit::value v = p;
    (void)v;
}
