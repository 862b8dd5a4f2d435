class Greeter(private val name: String) {
    fun greet(name: String: String {
        return "hello, " +
    }
