module github.com/tetherhq/tether

go 1.26

require github.com/google/go-dap v0.12.0
