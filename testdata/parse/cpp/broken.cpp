class Greeter {
 public:
  std::string greet( {
    return "hello" +;
  }
