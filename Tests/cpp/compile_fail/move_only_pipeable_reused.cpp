/* A pipeable operator kept in a variable and applied as an lvalue copies
 * its callable: a move-only one failed with "use of deleted function" deep
 * in the header; the header says what to write instead. */
// expect: apply it once as `s | std::move(op)`
#include <signalkit.hpp>
#include <memory>
int main() {
    auto op = signalkit::map([k = std::make_unique<int>(2)](std::int64_t n) { return n * *k; });
    auto s = signalkit::single(1) | op;
    (void)s;
}
