/* A pipeable given arguments its member does not take: the error names the
 * operator where the pipeable is made, not deep in the header where it is
 * applied. */
// expect: signalkit::take: no member signal::take takes these arguments
#include <signalkit.hpp>
int main() {
    auto op = signalkit::take("three");
    (void)op;
}
