function greet(g
    return "hello, " * (g.name
end
