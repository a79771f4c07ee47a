/* Comparing a value with a long double stops at the same message as making
 * a value of it (the comparison is with the value it would make). */
// expect: a long double does not convert to a value
#include <signalkit.hpp>
int main() {
    signalkit::value v(0.5);
    return v == 0.5L ? 0 : 1;
}
