// marbles.cpp - the marble test of docs/testing.md in C++: debounce on virtual time.
#include <signalkit_test.hpp>

#include <iostream>
#include <string>

namespace sk = signalkit;

int main() {
    const double frame = 0.001; // a frame is 1 ms of virtual time
    const std::string expected = "------b-----(c|)";
    bool passed;
    {
        auto queue = sk::test::virtual_queue::create("test");
        auto [keys, log] = sk::test::cold(queue, frame, "-a-b-------c|");
        auto results = sk::test::record(keys | sk::debounce(3 * frame, queue), queue, frame);
        queue.run(); // no real clock: microseconds
        std::string actual = results.diagram();
        std::cout << "expected: " << expected << "\nactual:   " << actual << "\n";
        std::cout << "subscriptions: " << log.text() << "\n";
        passed = actual == expected && log.text() == "^0 !12";
    }
    return passed && sk::live_objects() == 0 ? 0 : 1; // every handle is gone
}
