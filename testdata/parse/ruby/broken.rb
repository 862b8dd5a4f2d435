class Greeter
  def greet(name
    "hello, " +
  end
