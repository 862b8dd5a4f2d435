module demo

go 1.23
