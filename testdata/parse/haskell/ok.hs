-- | Says hello.
module Main where

import Data.List (intercalate)

data Greeter = Greeter { name :: String, count :: Int }

greet :: Greeter -> [String] -> String
greet g [] = "hello, " ++ name g
greet _ ns = intercalate "\n" (map ("hello, " ++) ns)

main :: IO ()
main = do
  let g = Greeter { name = "world", count = 0 }
  putStrLn (greet g ["a", "b"])
