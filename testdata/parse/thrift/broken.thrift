struct Greeting {
  1: required string name
  2: optional Kind kind = 
service Greeter {
