#include <iostream>
#include <memory>
#include <vector>

namespace app {

class Shape {
public:
    virtual ~Shape() = default;
    virtual double area() const = 0;
};

class Square : public Shape {
public:
    explicit Square(double s) : side(s) {}
    double area() const override { return side * side; }
private:
    double side;
};

Shape* make(double s) {
    return new Square(s);
}

}  // namespace app

int main() {
    std::vector<int> v{1, 2, 3};
    for (auto it = v.begin(); it != v.end(); ++it) {
        std::cout << *it << std::endl;
    }
    for (const auto& x : v) {
        std::cout << x << "\n";
    }
    app::Shape* raw = app::make(2.0);
    auto owned = std::make_unique<app::Square>(3.0);
    delete raw;
    int* arr = new int[10];
    delete[] arr;
    if (raw == NULL) { return 1; }
    return 0;
}
