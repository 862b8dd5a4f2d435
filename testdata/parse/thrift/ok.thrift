// A greeting service.
namespace go greeter
namespace py greeter

include "shared.thrift"

const string DEFAULT_GREETING = "hello"

enum Kind {
  FORMAL = 1,
  CASUAL = 2
}

struct Greeting {
  1: required string name,
  2: optional Kind kind = Kind.CASUAL,
  3: list<string> tags
}

exception GreetError {
  1: string message
}

service Greeter extends shared.Base {
  string greet(1: Greeting g) throws (1: GreetError e),
  oneway void ping()
}
