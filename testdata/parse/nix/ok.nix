# Says hello.
{ pkgs ? import <nixpkgs> { }, name ? "world" }:

let
  greet = n: "hello, ${n}";
  names = [ "a" "b" ];
in
pkgs.stdenv.mkDerivation rec {
  pname = "greeter";
  version = "1.0";
  src = ./.;
  buildInputs = with pkgs; [ go ];
  meta.description = builtins.concatStringsSep "\n" (map greet names);
  inherit name;
}
