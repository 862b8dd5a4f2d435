(* Says hello. *)
type greeter = { name : string; mutable count : int }

let greet g = function
  | [] -> "hello, " ^ g.name
  | names -> String.concat "\n" (List.map (fun n -> "hello, " ^ n) names)

module Counter = struct
  let bump g = g.count <- g.count + 1
end

let () =
  let g = { name = "world"; count = 0 } in
  Counter.bump g;
  print_endline (greet g [ "a"; "b" ])
