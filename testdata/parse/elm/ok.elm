module Main exposing (main)

{-| Says hello. -}

import Html exposing (Html, text)


type alias Greeter =
    { name : String, count : Int }


greet : Greeter -> List String -> String
greet g names =
    case names of
        [] ->
            "hello, " ++ g.name

        _ ->
            String.join "\n" (List.map (\n -> "hello, " ++ n) names)


main : Html msg
main =
    text (greet { name = "world", count = 0 } [ "a", "b" ])
