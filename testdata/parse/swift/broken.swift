class Greeter {
    func greet(_ name: String -> String {
        return "hello, " +
    }
