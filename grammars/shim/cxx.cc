// tether's C++ support, linked only into modules whose external scanner is
// C++ (grammars/build; the manifest marks those languages "cxx").
//
// libc++abi for wasm32-wasi is built without exceptions, and its operator new
// then returns nullptr when malloc fails instead of throwing std::bad_alloc.
// A scanner does not check what new returns, and address 0 is ordinary memory
// in wasm, so it would write through that pointer and corrupt the module's
// data instead of trapping. These definitions replace libc++abi's (weak)
// ones: a failed allocation aborts, a trap the engine reports as its memory
// limit (the shim's sbrk records that the heap could not grow). The nothrow
// forms and operator delete stay libc++abi's: they return nullptr as they
// must, and free what malloc gave.

#include <cstdlib>
#include <new>

void *operator new(std::size_t size) {
  void *p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) {
    std::abort();
  }
  return p;
}

void *operator new[](std::size_t size) { return ::operator new(size); }

void *operator new(std::size_t size, std::align_val_t align) {
  void *p = nullptr;
  std::size_t a = static_cast<std::size_t>(align);
  if (a < sizeof(void *)) {
    a = sizeof(void *);
  }
  if (posix_memalign(&p, a, size == 0 ? 1 : size) != 0 || p == nullptr) {
    std::abort();
  }
  return p;
}

void *operator new[](std::size_t size, std::align_val_t align) { return ::operator new(size, align); }
