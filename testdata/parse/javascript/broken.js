function greet(name {
  return "hello, " + ;
}
