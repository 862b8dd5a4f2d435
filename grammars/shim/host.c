// tether's host module: shim.c with no grammar linked in.
//
// A custom language is a tree-sitter grammar compiled to a WebAssembly side
// module (`tree-sitter build --wasm`, as web-tree-sitter loads it). The
// engine instantiates the host, reserves the side module's data in the
// host's memory (tether_reserve) and room in its function table, links the
// side module to them, calls the side module's tree_sitter_NAME and passes
// the language it returns to tether_init_language. From there the host
// parses with it as a shipped module parses with its own grammar: the side
// module's lexer and scanner run through the shared function table.
//
// The build compiles this file with shim.c's text in place of the include
// below, so shim.c itself, and every shipped module, stays as it is.

#include <stdint.h>

#define TETHER_LANGUAGE tether_host_language

struct TSLanguage;
static const struct TSLanguage *host_language;

const struct TSLanguage *tether_host_language(void) { return host_language; }

#include "shim.c"

// tether_init_language creates the parser for the language at l (the
// address tree_sitter_NAME returned). It returns what tether_init does, or
// -1 for a null language.
EXPORT(tether_init_language) int32_t tether_init_language(uint32_t l) {
  if (l == 0) {
    return -1;
  }
  host_language = (const TSLanguage *)(uintptr_t)l;
  return tether_init();
}

// tether_reserve allocates size bytes, zeroed, aligned to align (at least
// a pointer's): the side module's data, at its __memory_base. NULL when
// memory ran out.
EXPORT(tether_reserve) void *tether_reserve(uint32_t size, uint32_t align) {
  if (align < sizeof(void *)) {
    align = sizeof(void *);
  }
  size_t n = ((size_t)size + align - 1) / align * align;
  if (n == 0) {
    n = align;
  }
  void *p = aligned_alloc(align, n);
  if (p) {
    memset(p, 0, n);
  }
  return p;
}

// tether_abi is the ABI version of the language at l, for the engine's
// error when the runtime cannot read it.
EXPORT(tether_abi) uint32_t tether_abi(uint32_t l) {
  return ts_language_abi_version((const TSLanguage *)(uintptr_t)l);
}
