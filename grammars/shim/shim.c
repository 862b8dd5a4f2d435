// tether's C shim: the only code of ours inside a grammar module.
//
// It is compiled with the tree-sitter runtime and one grammar into one
// wasm32-wasi reactor module (grammars/build). The host crosses the boundary a
// few times per parse, never per node:
//
//   tether_init()            create the parser for the grammar, once per instance
//   tether_names()           symbol and field names, read once per language
//   tether_input(len)        a buffer of len bytes for the source, reused
//   tether_parse(len, limit) parse the buffer and write the flat node table
//   tether_table()           where the table is (tether_parse returns the count)
//   tether_set_limit(pages)  cap the heap this instance may grow to (0: none)
//   tether_oom()             whether the cap was hit (after a trap)
//
// The table is in pre-order, one 48-byte record per visible node (see
// tether_node), built inside the module by a walk over the parser's subtrees
// that visits what a TSTreeCursor walk visits (see walk).
//
// The module imports one host function, tether.should_stop, which the parser's
// progress callback asks every hundred or so parse operations, so the host can
// cancel a parse cooperatively and keep the instance.

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tree_sitter/api.h"

// The runtime's internal headers: the walk reads subtrees directly.
#include "language.h"
#include "length.h"
#include "subtree.h"
#include "tree.h"

#ifndef TETHER_LANGUAGE
#error "compile with -DTETHER_LANGUAGE=tree_sitter_NAME"
#endif

extern const TSLanguage *TETHER_LANGUAGE(void);

#ifdef __wasm__
__attribute__((import_module("tether"), import_name("should_stop")))
#endif
extern int32_t tether_host_should_stop(void);

// EXPORT marks what exports.txt lists; the build exports exactly that list.
#define EXPORT(name) __attribute__((visibility("default")))

// Node flags; the host's engine/tree.go has the same values.
enum {
  FLAG_NAMED = 1 << 0,
  FLAG_EXTRA = 1 << 1,
  FLAG_ERROR = 1 << 2,
  FLAG_MISSING = 1 << 3,
  FLAG_HAS_ERROR = 1 << 4,
};

// One row of the node table, little-endian, 48 bytes.
typedef struct {
  uint16_t kind;    // symbol id (ts_node_symbol), 0xFFFF for ERROR
  uint16_t field;   // field id in the parent, 0 for none
  uint16_t flags;   // FLAG_*
  uint16_t pad;
  int32_t parent;   // index of the parent, -1 for the root
  int32_t next;     // index of the next sibling, -1 for none
  int32_t end;      // one past the last descendant
  uint32_t nchild;  // number of children
  uint32_t start_byte, end_byte;
  uint32_t start_row, start_col;
  uint32_t end_row, end_col;
} tether_node;

_Static_assert(sizeof(tether_node) == 48, "tether_node must be 48 bytes");

static TSParser *parser;
static const TSLanguage *language;

static char *input;
static uint32_t input_cap, input_len;

static tether_node *table;
static uint32_t table_cap;


static char *names;

// ---- memory cap -------------------------------------------------------------
//
// wasi-libc's malloc grows the heap through sbrk. This definition replaces
// libc's, so an instance stops growing at the host's per-run cap; the engine's
// runtime-wide cap (wazero's memory limit) stays as the hard bound.

static uint32_t limit_pages;  // 0: no cap of our own
static int32_t oom;

#ifdef __wasm__
void *sbrk(intptr_t increment) {
  uintptr_t pages = __builtin_wasm_memory_size(0);
  if (increment == 0) {
    return (void *)(pages * 65536);
  }
  if (increment < 0 || increment % 65536 != 0) {
    errno = EINVAL;
    return (void *)-1;
  }
  uintptr_t grow = (uintptr_t)increment / 65536;
  if (limit_pages != 0 && pages + grow > limit_pages) {
    oom = 1;
    errno = ENOMEM;
    return (void *)-1;
  }
  uintptr_t old = __builtin_wasm_memory_grow(0, grow);
  if (old == SIZE_MAX) {
    oom = 1;
    errno = ENOMEM;
    return (void *)-1;
  }
  return (void *)(old * 65536);
}
#endif  // bench/native builds this file natively for the same work outside wasm

EXPORT(tether_set_limit) void tether_set_limit(uint32_t pages) { limit_pages = pages; }

EXPORT(tether_oom) int32_t tether_oom(void) { return oom; }

// ---- set-up -------------------------------------------------------------------

// tether_init creates the parser. It returns 0, or -1 when the grammar's ABI
// does not fit the runtime, -2 when memory ran out.
EXPORT(tether_init) int32_t tether_init(void) {
  if (parser) {
    return 0;
  }
  language = TETHER_LANGUAGE();
  parser = ts_parser_new();
  if (!parser) {
    return -2;
  }
  if (!ts_parser_set_language(parser, language)) {
    return -1;
  }
  return 0;
}

// tether_names returns a block: u32 total size, u32 symbol count, u32 field
// count (ids 1..count), then every symbol name and every field name, each
// NUL-terminated. Built once.
EXPORT(tether_names) const char *tether_names(void) {
  if (names || !language) {
    return names;
  }
  uint32_t nsym = ts_language_symbol_count(language);
  uint32_t nfield = ts_language_field_count(language);
  size_t size = 12;
  for (uint32_t i = 0; i < nsym; i++) {
    const char *s = ts_language_symbol_name(language, (TSSymbol)i);
    size += (s ? strlen(s) : 0) + 1;
  }
  for (uint32_t i = 1; i <= nfield; i++) {
    const char *s = ts_language_field_name_for_id(language, (TSFieldId)i);
    size += (s ? strlen(s) : 0) + 1;
  }
  char *b = malloc(size);
  if (!b) {
    return NULL;
  }
  uint32_t head[3] = {(uint32_t)size, nsym, nfield};
  memcpy(b, head, sizeof head);
  char *p = b + 12;
  for (uint32_t i = 0; i < nsym; i++) {
    const char *s = ts_language_symbol_name(language, (TSSymbol)i);
    size_t n = s ? strlen(s) : 0;
    memcpy(p, s, n);
    p[n] = 0;
    p += n + 1;
  }
  for (uint32_t i = 1; i <= nfield; i++) {
    const char *s = ts_language_field_name_for_id(language, (TSFieldId)i);
    size_t n = s ? strlen(s) : 0;
    memcpy(p, s, n);
    p[n] = 0;
    p += n + 1;
  }
  names = b;
  return names;
}

// tether_input returns a buffer of at least len bytes for the source; the host
// writes the source there and calls tether_parse. NULL when memory ran out.
EXPORT(tether_input) char *tether_input(uint32_t len) {
  if (len + 1 > input_cap) {
    uint32_t cap = input_cap ? input_cap : 4096;
    while (cap < len + 1) {
      cap = cap > 0x7fffffff ? len + 1 : cap * 2;
    }
    char *b = realloc(input, cap);
    if (!b) {
      return NULL;
    }
    input = b;
    input_cap = cap;
  }
  return input;
}

// ---- parse --------------------------------------------------------------------

static const char *read_input(void *payload, uint32_t byte, TSPoint pos, uint32_t *n) {
  (void)payload;
  (void)pos;
  if (byte >= input_len) {
    *n = 0;
    return "";
  }
  *n = input_len - byte;
  return input + byte;
}

static bool progress(TSParseState *state) {
  (void)state;
  return tether_host_should_stop() != 0;
}

static bool reserve_table(uint32_t n) {
  if (n <= table_cap) {
    return true;
  }
  uint32_t cap = table_cap ? table_cap : 1024;
  while (cap < n) {
    cap *= 2;
  }
  tether_node *t = realloc(table, (size_t)cap * sizeof(tether_node));
  if (!t) {
    return false;
  }
  table = t;
  table_cap = cap;
  return true;
}


// ---- the walk ---------------------------------------------------------------
//
// The walk reads the parser's subtrees directly (the runtime's internal
// headers), as TSTreeCursor does, without a cursor's per-step re-iteration or
// a TSNode per accessor. It visits exactly the nodes a TSTreeCursor walk
// visits, with the same values (symbol and alias, field as
// ts_tree_cursor_current_field_id finds it, flags, byte and point ranges).

// One level of the walk: the children of a subtree being visited.
typedef struct {
  Subtree parent;
  Length position;          // start of the next child
  const TSSymbol *aliases;  // the parent's production's alias sequence
  uint32_t child;           // index of the next child
  uint32_t structural;      // structural index of the next child
  uint32_t field;           // field of this level's hidden parent (0 below a visible one)
  int32_t row;              // row of the nearest visible ancestor
  int32_t last;             // that row's last child row so far, -1 for none
  uint32_t owner;           // the frame holding row's last (a hidden level points up)
} frame;

static frame *frames;
static uint32_t frames_cap;

static bool reserve_frames(uint32_t n) {
  if (n <= frames_cap) {
    return true;
  }
  uint32_t cap = frames_cap ? frames_cap * 2 : 64;
  while (cap < n) {
    cap *= 2;
  }
  frame *f = realloc(frames, (size_t)cap * sizeof(frame));
  if (!f) {
    return false;
  }
  frames = f;
  frames_cap = cap;
  return true;
}

// field_at is the non-inherited field of a production's structural child.
static inline uint32_t field_at(Subtree parent, uint32_t structural) {
  const TSFieldMapEntry *map, *map_end;
  ts_language_field_map(language, parent.ptr->production_id, &map, &map_end);
  for (; map < map_end; map++) {
    if (!map->inherited && map->child_index == structural) {
      return map->field_id;
    }
  }
  return 0;
}

static inline void put(uint32_t i, Subtree t, TSSymbol alias, Length pos, uint32_t field, int32_t parent) {
  tether_node *r = &table[i];
  TSSymbol sym = alias ? alias : ts_subtree_symbol(t);
  bool named = alias ? ts_language_symbol_metadata(language, alias).named : ts_subtree_named(t);
  sym = ts_language_public_symbol(language, sym);
  uint16_t flags = 0;
  if (named) flags |= FLAG_NAMED;
  if (ts_subtree_extra(t)) flags |= FLAG_EXTRA;
  if (sym == (TSSymbol)-1) flags |= FLAG_ERROR;
  if (ts_subtree_missing(t)) flags |= FLAG_MISSING;
  if (ts_subtree_error_cost(t) > 0) flags |= FLAG_HAS_ERROR;
  Length end = length_add(pos, ts_subtree_size(t));
  r->kind = sym;
  r->field = (uint16_t)field;
  r->flags = flags;
  r->pad = 0;
  r->parent = parent;
  r->next = -1;
  r->end = (int32_t)i + 1;
  r->nchild = 0;
  r->start_byte = pos.bytes;
  r->end_byte = end.bytes;
  r->start_row = pos.extent.row;
  r->start_col = pos.extent.column;
  r->end_row = end.extent.row;
  r->end_col = end.extent.column;
}

static inline void open_level(uint32_t depth, Subtree t, Length pos, uint32_t field, int32_t row, uint32_t owner) {
  frame *f = &frames[depth];
  f->parent = t;
  f->position = pos;
  f->aliases = ts_language_alias_sequence(language, t.ptr->production_id);
  f->child = 0;
  f->structural = 0;
  f->field = field;
  f->row = row;
  f->last = -1;
  f->owner = owner;
}

// walk writes the node table of tree and returns the node count, or -2 when
// memory ran out.
static int32_t walk(TSTree *tree) {
  Subtree root = tree->root;
  uint32_t total = ts_subtree_visible_descendant_count(root) + 1;
  if (!reserve_table(total) || !reserve_frames(64)) {
    return -2;
  }
  uint32_t count = 0;
  put(count++, root, 0, ts_subtree_padding(root), 0, -1);
  if (ts_subtree_child_count(root) == 0) {
    return (int32_t)count;
  }
  uint32_t depth = 0;
  open_level(0, root, ts_subtree_padding(root), 0, 0, 0);
  for (;;) {
    frame *f = &frames[depth];
    if (f->child == f->parent.ptr->child_count) {
      // This level is done: close its row when it is a visible node's.
      if (frames[depth].owner == depth) {
        table[f->row].end = (int32_t)count;
      }
      if (depth == 0) {
        break;
      }
      depth--;
      continue;
    }
    const Subtree *children = ts_subtree_children(f->parent);
    Subtree child = children[f->child];
    Length pos = f->position;
    uint32_t structural = f->structural;
    bool extra = ts_subtree_extra(child);
    bool visible = ts_subtree_visible(child);
    TSSymbol alias = 0;
    if (!extra) {
      if (f->aliases) {
        alias = f->aliases[structural];
        visible |= alias != 0;
      }
      f->structural++;
    }
    f->position = length_add(pos, ts_subtree_size(child));
    f->child++;
    if (f->child < f->parent.ptr->child_count) {
      f->position = length_add(f->position, ts_subtree_padding(children[f->child]));
    }
    uint32_t field = 0;
    if (!extra) {
      field = field_at(f->parent, structural);
      if (!field) {
        field = f->field;
      }
    }
    if (visible) {
      frame *o = &frames[f->owner];
      int32_t row = (int32_t)count++;
      put((uint32_t)row, child, alias, pos, field, o->row);
      table[o->row].nchild++;
      if (o->last >= 0) {
        table[o->last].next = row;
      }
      o->last = row;
      if (ts_subtree_child_count(child) > 0) {
        if (!reserve_frames(depth + 2)) {
          return -2;
        }
        depth++;
        open_level(depth, child, pos, 0, row, depth);
      }
    } else if (ts_subtree_visible_child_count(child) > 0) {
      uint32_t owner = f->owner;
      int32_t row = f->row;
      if (!reserve_frames(depth + 2)) {
        return -2;
      }
      depth++;
      open_level(depth, child, pos, field, row, owner);
    }
  }
  return (int32_t)count;
}

// tether_parse parses the first len bytes of the input buffer and writes the
// node table. It returns the number of nodes, or -1 when the host stopped the
// parse (the parser is reset and the instance stays usable), -2 when memory
// ran out.
EXPORT(tether_parse) int32_t tether_parse(uint32_t len) {
  if (!parser) {
    return -3;
  }
  input_len = len;
  TSInput in = {.payload = NULL, .read = read_input, .encoding = TSInputEncodingUTF8, .decode = NULL};
  TSParseOptions opts = {.payload = NULL, .progress_callback = progress};
  TSTree *tree = ts_parser_parse_with_options(parser, NULL, in, opts);
  if (!tree) {
    ts_parser_reset(parser);
    return -1;
  }
  int32_t n = walk(tree);
  ts_tree_delete(tree);
  return n;
}

// tether_table returns the node table the last tether_parse wrote.
EXPORT(tether_table) const tether_node *tether_table(void) { return table; }
