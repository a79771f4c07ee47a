/* take_until with a callable returning bool (true was take_pass, false
 * take_drop: it never completed). */
// expect: signalkit::take_until: the callable returns bool
#include <signalkit.hpp>
int main() {
    auto s = signalkit::single(1) | signalkit::take_until([](std::int64_t n) { return n < 3; });
    (void)s;
}
