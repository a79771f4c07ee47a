/* The header under C++14: one clear #error, not errors from deep inside. */
// flags: -std=c++14
// expect: signalkit.hpp needs C++17 or later
#include <signalkit.hpp>
