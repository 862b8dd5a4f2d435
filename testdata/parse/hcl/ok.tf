# Says hello.
variable "name" {
  type    = string
  default = "world"
}

resource "local_file" "greeting" {
  filename = "${path.module}/hello.txt"
  content  = "hello, ${var.name}"
  tags     = { env = "dev", count = 2 }
}

output "names" {
  value = [for n in ["a", "b"] : upper(n)]
}
