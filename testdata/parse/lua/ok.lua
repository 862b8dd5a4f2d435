-- Says hello.
local Greeter = {}
Greeter.__index = Greeter

function Greeter.new(name)
  return setmetatable({ name = name, count = 0 }, Greeter)
end

function Greeter:greet(...)
  self.count = self.count + 1
  local names = { ... }
  if #names == 0 then
    return "hello, " .. self.name
  end
  local out = {}
  for i, n in ipairs(names) do
    out[i] = "hello, " .. n
  end
  return table.concat(out, "\n")
end

--[[ a long
comment ]]
print(Greeter.new("world"):greet("a", "b"))
return Greeter
