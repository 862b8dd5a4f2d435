#include <iostream>
#include <string>
#include <vector>

namespace greet {

template <typename T>
class Greeter {
 public:
  explicit Greeter(T name) : name_(std::move(name)) {}
  std::string greet(const std::vector<std::string>& names) const {
    std::string out = "hello";
    for (const auto& n : names) {
      out += ", " + n;
    }
    return names.empty() ? out + ", " + name_ : out;
  }

 private:
  T name_;
};

}  // namespace greet

int main() {
  auto g = greet::Greeter<std::string>("world");
  std::cout << g.greet({"a", "b"}) << std::endl;
  return 0;
}
