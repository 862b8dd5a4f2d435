#include <stdio.h>
#include <stdlib.h>

#define MAX(a, b) ((a) > (b) ? (a) : (b))

typedef struct greeter {
    const char *name;
    int count;
} greeter;

static int greet(greeter *g, const char **names, size_t n) {
    g->count++;
    if (n == 0) {
        return printf("hello, %s\n", g->name);
    }
    for (size_t i = 0; i < n; i++) {
        printf("hello, %s\n", names[i]);
    }
    return MAX(g->count, 0);
}

int main(int argc, char **argv) {
    greeter g = {.name = "world", .count = 0};
    return greet(&g, (const char **)argv + 1, (size_t)(argc - 1)) < 0;
}
