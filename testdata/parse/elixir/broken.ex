defmodule Greeter do
  def greet(name do
    "hello, " <> name
  end
