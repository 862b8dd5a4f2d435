class Greeter {
  String greet(String name {
    return 'hello, ' + ;
  }
