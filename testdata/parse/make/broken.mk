all: bin
	$(GO build
ifeq ($(A),b
endif
