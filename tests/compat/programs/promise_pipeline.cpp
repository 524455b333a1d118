// Three stages on three threads, connected by promises and futures: parse
// a batch of numbers, square them, sum the squares. A batch with a bad
// number fails in the parsing stage; its exception travels through the
// next stages' futures to main, which prints it. The answer: each batch's
// sum or its error.
#include <exception>
#include <future>
#include <iostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

std::vector<long> parse(const std::string& batch) {
  std::vector<long> out;
  std::size_t at = 0;
  while (at < batch.size()) {
    std::size_t end = batch.find(',', at);
    if (end == std::string::npos) end = batch.size();
    const std::string item = batch.substr(at, end - at);
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos) {
      throw std::invalid_argument("not a number: '" + item + "' at offset " + std::to_string(at));
    }
    out.push_back(std::stol(item));
    at = end + 1;
  }
  return out;
}

// Runs `f(input.get())` into `output`; whatever it throws (or its input
// carried) goes on to the next stage.
template <class In, class Out, class F>
void stage(std::future<In> input, std::promise<Out> output, F f) {
  try {
    output.set_value(f(input.get()));
  } catch (...) {
    output.set_exception(std::current_exception());
  }
}

int main() {
  const std::vector<std::string> batches = {
      "1,2,3,4,5",       "10,20,30",    "7",         "100,200,300,400",
      "12,x3,14",        "0,0,0,1",     "999,1",     "5,5,5,5,5,5,5,5",
  };
  for (const std::string& batch : batches) {
    std::promise<std::string> text;
    std::promise<std::vector<long>> parsed;
    std::promise<std::vector<long>> squared;
    std::promise<long> summed;
    std::future<std::vector<long>> parsed_f = parsed.get_future();
    std::future<std::vector<long>> squared_f = squared.get_future();
    std::future<long> result = summed.get_future();

    std::thread parser(stage<std::string, std::vector<long>, decltype(&parse)>, text.get_future(),
                       std::move(parsed), &parse);
    std::thread squarer(
        [](std::future<std::vector<long>> in, std::promise<std::vector<long>> out) {
          stage(std::move(in), std::move(out), [](std::vector<long> v) {
            for (long& n : v) n *= n;
            return v;
          });
        },
        std::move(parsed_f), std::move(squared));
    std::thread adder(
        [](std::future<std::vector<long>> in, std::promise<long> out) {
          stage(std::move(in), std::move(out), [](const std::vector<long>& v) {
            long sum = 0;
            for (long n : v) sum += n;
            return sum;
          });
        },
        std::move(squared_f), std::move(summed));

    text.set_value(batch);
    try {
      const long sum = result.get();
      std::cout << "[" << batch << "] sum of squares " << sum << "\n";
    } catch (const std::invalid_argument& e) {
      std::cout << "[" << batch << "] failed: " << e.what() << "\n";
    }
    parser.join();
    squarer.join();
    adder.join();
  }
  return 0;
}
