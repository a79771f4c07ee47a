/* A long double is not a value: a value holds a double, which would round
 * it; the constructor was ambiguous (bool or double) deep in the header. */
// expect: a long double does not convert to a value
#include <signalkit.hpp>
int main() {
    long double x = 0.1L;
    signalkit::value v = x;
    (void)v;
}
