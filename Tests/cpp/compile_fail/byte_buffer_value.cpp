/* An unsigned char buffer is bytes, not a user pointer: the header points
 * to value::from_bytes. */
// expect: bytes are value::from_bytes(p, length)
#include <signalkit.hpp>
int main() {
    static const unsigned char buffer[4] = {1, 2, 3, 4};
    const unsigned char *p = buffer;
    signalkit::value v(p);
    (void)v;
}
