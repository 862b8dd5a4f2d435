# Says hello.
NAME ?= world
GO := go
SRCS = $(wildcard *.go)

.PHONY: all clean

all: bin/greeter

bin/greeter: $(SRCS)
	$(GO) build -o $@ .

clean:
	rm -rf bin

ifeq ($(NAME),world)
GREETING = hello
endif
