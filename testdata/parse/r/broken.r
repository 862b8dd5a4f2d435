greet <- function(name {
  paste0("hello, ", name
}
