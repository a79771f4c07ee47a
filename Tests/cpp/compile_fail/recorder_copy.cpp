/* A recorder is move-only: sk_test_recorder has no _retain, so a copy
 * (which would release the one reference twice) does not compile. */
// expect: use of deleted function
#include <signalkit_test.hpp>

void copy_a_recorder(const signalkit::test::recorder &r);
void copy_a_recorder(const signalkit::test::recorder &r) {
    signalkit::test::recorder copy = r;
    (void)copy;
}
