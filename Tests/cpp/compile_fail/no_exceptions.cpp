/* The header with exceptions disabled: a clear #error first, saying why
 * (its failures are signalkit::error exceptions), where the only error was
 * the compiler's "exception handling disabled" at a throw deep inside. */
// flags: -fno-exceptions
// expect: signalkit.hpp reports failures as exceptions
#include <signalkit.hpp>
