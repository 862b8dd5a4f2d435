#include <stdio.h>
#include <stdlib.h>
#include "util.h"

#define MAX 10

struct point {
    int x;
    int y;
    char *label;
};

static int counter = 0;

int add(int a, int b) {
    return a + b;
}

void fill(struct point *p, int n) {
    char *buf = malloc(n);
    if (buf == NULL) {
        return;
    }
    for (int i = 0; i < n; i++) {
        p[i].x = i;
        p[i].y = add(i, 1);
    }
    strcpy(buf, "hello");
    sprintf(buf, "%d", n);
    free(buf);
    while (counter < MAX) {
        counter++;
        if (counter == 5) break;
    }
    goto done;
done:
    printf("done %d\n", counter);
}

int main(void) {
    struct point pts[MAX];
    fill(pts, MAX);
    int *leak = malloc(sizeof(int) * 4);
    switch (pts[0].x) {
    case 0: puts("zero"); break;
    default: puts("other");
    }
    return 0;
}
