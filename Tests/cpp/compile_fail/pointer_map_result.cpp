/* A map returning an object pointer (its result was a bool value). */
// expect: use signalkit::value::pointer(p) for a user pointer
#include <signalkit.hpp>
struct widget {
    int id;
};
int main() {
    static widget w{7};
    auto s = signalkit::single(1) | signalkit::map([](std::int64_t) { return &w; });
    (void)s;
}
