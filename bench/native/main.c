// tsnative: the same tree-sitter runtime, grammar and shim as a grammar's wasm
// module, compiled natively with gcc, for bench/parse to compare against.
// Never part of the tether binary.
//
//   tsnative LISTFILE [REPS]   parse every file named in LISTFILE (one path a
//                              line) REPS times through the shim (parse + the
//                              same node-table walk the wasm module does) and
//                              print "bytes nodes wall-seconds cpu-seconds"
//                              for one core.
//   tsnative -sexp FILE        print ts_node_string of FILE's tree.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tree_sitter/api.h"

extern const TSLanguage *TETHER_LANGUAGE(void);
extern int32_t tether_init(void);
extern char *tether_input(uint32_t len);
extern int32_t tether_parse(uint32_t len);

// The wasm module imports this from the host; natively nothing cancels.
int32_t tether_host_should_stop(void) { return 0; }

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc(n > 0 ? (size_t)n : 1);
  if (n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n) {
    fclose(f);
    free(b);
    return NULL;
  }
  fclose(f);
  *len = (size_t)n;
  return b;
}

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "-sexp") == 0) {
    size_t len;
    char *src = slurp(argv[2], &len);
    if (!src) { perror(argv[2]); return 2; }
    TSParser *p = ts_parser_new();
    ts_parser_set_language(p, TETHER_LANGUAGE());
    TSTree *t = ts_parser_parse_string(p, NULL, src, (uint32_t)len);
    char *s = ts_node_string(ts_tree_root_node(t));
    printf("%s\n", s);
    return 0;
  }
  if (argc < 2) {
    fprintf(stderr, "usage: tsnative LISTFILE [REPS] | tsnative -sexp FILE\n");
    return 2;
  }
  int reps = argc > 2 ? atoi(argv[2]) : 1;
  size_t listlen;
  char *list = slurp(argv[1], &listlen);
  if (!list) { perror(argv[1]); return 2; }
  size_t cap = 1024, n = 0;
  char **srcs = malloc(cap * sizeof *srcs);
  size_t *lens = malloc(cap * sizeof *lens);
  for (char *line = strtok(list, "\n"); line; line = strtok(NULL, "\n")) {
    if (n == cap) {
      cap *= 2;
      srcs = realloc(srcs, cap * sizeof *srcs);
      lens = realloc(lens, cap * sizeof *lens);
    }
    srcs[n] = slurp(line, &lens[n]);
    if (!srcs[n]) { perror(line); return 2; }
    n++;
  }
  if (tether_init() != 0) { fprintf(stderr, "tether_init failed\n"); return 2; }
  uint64_t bytes = 0, nodes = 0;
  double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
  for (int r = 0; r < reps; r++) {
    for (size_t i = 0; i < n; i++) {
      char *in = tether_input((uint32_t)lens[i]);
      memcpy(in, srcs[i], lens[i]);
      int32_t c = tether_parse((uint32_t)lens[i]);
      if (c < 0) { fprintf(stderr, "parse failed: %d\n", c); return 1; }
      bytes += lens[i];
      nodes += (uint64_t)c;
    }
  }
  double dt = clock_s(CLOCK_MONOTONIC) - t0, dc = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
  printf("%llu %llu %.6f %.6f\n", (unsigned long long)bytes, (unsigned long long)nodes, dt, dc);
  return 0;
}
