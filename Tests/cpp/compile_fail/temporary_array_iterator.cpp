/* An iterator into a temporary array value would dangle once the statement
 * ends (and two temporaries' iterators never meet): begin() and end() of an
 * rvalue value are deleted; a range-for over a temporary still works. */
// expect: use of deleted function
#include <signalkit.hpp>
#include <vector>
int main() {
    auto first = signalkit::value(std::vector<signalkit::value>{1, 2}).begin();
    return (*first).as<int>();
}
