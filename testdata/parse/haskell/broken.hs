module Main where

greet :: String -> String
greet n = "hello, " ++ (n

main = putStrLn (greet "x"
