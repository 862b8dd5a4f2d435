require "set"

module Greet
  # Says hello.
  class Greeter
    attr_reader :name

    def initialize(name)
      @name = name
      @count = 0
    end

    def greet(*names)
      @count += 1
      return "hello, #{name}" if names.empty?

      names.map { |n| "hello, #{n}" }.join("\n")
    end
  end
end

puts Greet::Greeter.new("world").greet("a", "b")
