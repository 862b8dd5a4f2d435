{ pkgs }:
let
  greet = n: "hello, ${n}"
in {
  x = greet "a"
