// quickstart.cpp - the README's C++ quick start: a pipe, operators chained
// with |, typed lambdas, a subscription that ends with its scope.
#include <signalkit.hpp>

#include <cstdint>
#include <iostream>
#include <string>

namespace sk = signalkit;

static void run() {
    auto pipe = sk::pipe::create();
    auto labels = pipe.signal()
                  | sk::map([](std::int64_t n) { return n * 10; })
                  | sk::filter([](std::int64_t n) { return n > 10; })
                  | sk::map([](std::int64_t n) { return "#" + std::to_string(n); })
                  | sk::take(2);
    {
        sk::scoped_disposable subscription = labels.start(
            [](std::string_view label) { std::cout << label << "\n"; },
            [](const sk::value &error) { std::cout << "error " << error.as<std::string>() << "\n"; },
            [] { std::cout << "done\n"; });
        for (int n = 1; n <= 4; n++) {
            pipe.put(n); // prints #20, #30, done
        }
    }
    try {
        sk::single(1).take(1).delay(-1.0, sk::queue::host("example"));
    } catch (const sk::error &e) {
        std::cout << sk_status_string(e.code()) << ": " << e.what() << "\n";
    }
}

int main() {
    run();
    return sk::live_objects() == 0 ? 0 : 1; // every handle and callable is gone
}
