class Greeter {
    String greet(List<String> names {
        return names.join(
    }
