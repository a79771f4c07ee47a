/*
 * signalkit_test.hpp alone (it includes signalkit.hpp, signalkit_test.h and
 * the standard library, nothing else), as a C++ program sees it (make
 * test-header): C++17, the C++ suite's warnings, -Werror and nothing but
 * include/ on the include path. Every function of the header is named, so
 * that each is instantiated and compiled. Compiled only, never linked.
 */
#include <signalkit_test.hpp>

bool header_test_hpp_uses_the_declarations();

bool header_test_hpp_uses_the_declarations() {
    namespace skt = signalkit::test;
    auto queue = skt::virtual_queue::create("header");
    auto [keys, log] = skt::cold(queue, 0.001, "-a|", {{'a', 1}}, signalkit::value("failed"));
    auto hot = skt::hot(queue, 0.001, "^a|");
    auto recorder = skt::record(keys, queue, 0.001);
    std::size_t ran = queue.advance_by(0.001) + queue.advance_to(0.002) + queue.run(10) + queue.pending();
    recorder.dispose();
    auto adopted = skt::recorder::adopt(recorder.detach());
    adopted.reset();
    auto other = skt::virtual_queue::borrow(skt::virtual_queue::adopt(queue.detach()).get());
    return ran > 0 && other.now().count() > 0 && adopted.diagram() == log.text() && hot.subscriptions;
}
