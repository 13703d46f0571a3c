/* A cmd: solver in C: backtracking on the cell with fewest candidates (9x9 grids).
   Build: cc -O2 -o solver examples/cmd/solver.c */
#include <stdio.h>
#include <string.h>

static int g[81], limit, found, nodes;
static char first[82];

static int ok(int i, int d) { /* d is not yet in i's row, column or box */
    int r = i / 9, c = i % 9, b = r / 3 * 27 + c / 3 * 3;
    for (int k = 0; k < 9; k++)
        if (g[r * 9 + k] == d || g[k * 9 + c] == d || g[b + k / 3 * 9 + k % 3] == d) return 0;
    return 1;
}

static int search(void) { /* 1 when the limit is reached */
    int best = -1, fewest = 10;
    nodes++;
    for (int i = 0; i < 81 && fewest > 1; i++) {
        if (g[i]) continue;
        int n = 0;
        for (int d = 1; d <= 9; d++) n += ok(i, d);
        if (n < fewest) fewest = n, best = i;
    }
    if (best < 0) {
        if (found++ == 0) for (int i = 0; i < 81; i++) first[i] = '0' + g[i];
        return found >= limit;
    }
    for (int d = 1; d <= 9; d++)
        if (ok(best, d)) {
            g[best] = d;
            if (search()) return 1;
            g[best] = 0;
        }
    return 0;
}

int main(void) {
    char line[256], text[128];
    printf("READY name=example-c max_box=3\n");
    fflush(stdout);
    while (fgets(line, sizeof line, stdin) && sscanf(line, "%127s %d", text, &limit) == 2) {
        for (int i = 0; i < 81; i++) g[i] = text[i] == '.' ? 0 : text[i] - '0';
        found = nodes = 0;
        int valid = 1;
        for (int i = 0; i < 81; i++)
            if (g[i]) { int d = g[i]; g[i] = 0; valid &= ok(i, d); g[i] = d; }
        if (valid) search();
        printf("%s %s solutions=%d nodes=%d\n", found ? "SOLVED" : "UNSAT", found ? first : "-",
               found, nodes);
        fflush(stdout);
    }
    return 0;
}
