function greet(name
  return "hello, " ..
end
