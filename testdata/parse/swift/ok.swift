import Foundation

/// Says hello.
final class Greeter {
    let name: String
    private var count = 0

    init(name: String) {
        self.name = name
    }

    func greet(_ names: String...) -> String {
        count += 1
        guard !names.isEmpty else {
            return "hello, \(name)"
        }
        return names.map { "hello, \($0)" }.joined(separator: "\n")
    }
}

struct Point: Equatable {
    var x: Int
    var y: Int
}

let g = Greeter(name: "world")
print(g.greet("a", "b"))
