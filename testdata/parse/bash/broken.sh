greet() {
  if [ -n "$1" ]; then
    echo "hello, $1"
}
