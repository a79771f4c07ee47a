// merge_map_bounded.cpp - the C++ guide's bounded merge_map: jobs mapped
// to workers one at a time, at most one job waiting for the worker, the
// next dropped; its arguments in C's order, the callable where C's fn is.
#include <signalkit.hpp>

#include <cstdint>
#include <iostream>
#include <vector>

namespace sk = signalkit;

static void run() {
    auto jobs = sk::pipe::create();
    const std::vector<sk::pipe> workers = {sk::pipe::create(), sk::pipe::create(), sk::pipe::create()};
    // max_concurrent, capacity, overflow, then the callable.
    auto results = jobs.signal().merge_map(1, 1, sk::overflow::drop_newest, [&workers](std::int64_t job) {
        std::cout << "job " << job << " starts\n";
        return workers[static_cast<std::size_t>(job)].signal();
    });
    sk::scoped_disposable subscription = results.start(
        [](std::int64_t result) { std::cout << "result " << result << "\n"; });
    jobs.put(0); // job 0 takes the worker
    jobs.put(1); // job 1 waits
    jobs.put(2); // no room: dropped
    workers[0].put(10);
    workers[0].put_completion(); // the worker is free: job 1
    workers[1].put(11);
}

int main() {
    run();
    return sk::live_objects() == 0 ? 0 : 1; // every handle and callable is gone
}
