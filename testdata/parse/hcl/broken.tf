resource "local_file" "greeting" {
  filename = 
  content  = "hello"
