/* signalkit::kind is the one enumeration that is not a value: comparing a
 * value with a kind means comparing its kind(), and as an int64 it would
 * quietly be false. */
// expect: to test a value's kind, compare v.kind() == signalkit::kind::
#include <signalkit.hpp>
int main() {
    signalkit::value v;
    return v == signalkit::kind::nil ? 0 : 1;
}
