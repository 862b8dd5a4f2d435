# Says hello.
module Greeters

export Greeter, greet

mutable struct Greeter
    name::String
    count::Int
end

function greet(g::Greeter, names::Vector{String}=String[])
    g.count += 1
    if isempty(names)
        return "hello, $(g.name)"
    end
    return join(["hello, " * n for n in names], "\n")
end

end

println(Greeters.greet(Greeters.Greeter("world", 0), ["a", "b"]))
