module Main exposing (main)

greet : String -> String
greet n =
    "hello, " ++ (n

main =
