# Says hello.
greet <- function(name = "world", names = character()) {
  if (length(names) == 0) {
    return(paste0("hello, ", name))
  }
  paste("hello,", names, collapse = "\n")
}

greeter <- list(name = "world", count = 0L)
greeter$count <- greeter$count + 1L
for (n in c("a", "b")) {
  print(greet(names = n))
}
sapply(1:3, function(i) i * 2)
