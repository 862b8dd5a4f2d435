defmodule Greeter do
  @moduledoc "Says hello."

  defstruct name: "world", count: 0

  def greet(%__MODULE__{name: name} = g, names \\ []) do
    case names do
      [] -> {"hello, #{name}", %{g | count: g.count + 1}}
      _ -> {Enum.map_join(names, "\n", &"hello, #{&1}"), g}
    end
  end

  defp shout(s) when is_binary(s), do: String.upcase(s)
end

IO.puts(elem(Greeter.greet(%Greeter{}), 0))
