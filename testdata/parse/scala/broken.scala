class Greeter(val name: String) {
  def greet(names: String*: String = {
    s"hello, " +
  }
