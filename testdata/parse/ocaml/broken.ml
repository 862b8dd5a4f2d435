let greet g =
  match g with
  | [] -> "hello, " ^ (g
let () = print_endline (greet [
