/* A cmd: solver in C: bitmask backtracking, every grid from 4x4 to 25x25 (max_box=5).
   Each row, column and box keeps a bitmask of the digits it holds, so a cell's candidates
   are one OR and one NOT; the search fills the empty cell with the fewest candidates first
   and counts solutions up to the limit. Build: cc -O2 -o solver examples/cmd/solver.c */
#include <stdio.h>
#include <string.h>

#define MAX_N 25
static const char SYMBOLS[] = ".123456789ABCDEFGHIJKLMNOP"; /* "." is a blank */
static int n, box, cells, limit, found, nodes;
static int g[MAX_N * MAX_N], rows[MAX_N], cols[MAX_N], boxes[MAX_N];
static char first[MAX_N * MAX_N + 1];

static int box_of(int i) { return i / n / box * box + i % n / box; }

static int candidates(int i) { /* bit d-1 set: digit d is free at cell i */
    return ~(rows[i / n] | cols[i % n] | boxes[box_of(i)]) & ((1 << n) - 1);
}

static void flip(int i, int d) { /* place digit d at cell i, or take it back */
    int bit = 1 << (d - 1);
    rows[i / n] ^= bit, cols[i % n] ^= bit, boxes[box_of(i)] ^= bit;
}

static int search(void) { /* 1 when the limit is reached */
    int best = -1, fewest = n + 1, free = 0;
    nodes++;
    for (int i = 0; i < cells && fewest > 1; i++) {
        if (g[i]) continue;
        int c = candidates(i), count = __builtin_popcount(c);
        if (count < fewest) fewest = count, best = i, free = c;
    }
    if (best < 0) {
        if (found++ == 0) for (int i = 0; i < cells; i++) first[i] = SYMBOLS[g[i]];
        return found >= limit;
    }
    for (; free; free &= free - 1) {
        int d = __builtin_ctz(free) + 1;
        g[best] = d, flip(best, d);
        if (search()) return 1;
        g[best] = 0, flip(best, d);
    }
    return 0;
}

static int read_grid(const char *text) { /* 1: givens break no rule, 0: they do, -1: bad text */
    int valid = 1;
    memset(rows, 0, sizeof rows), memset(cols, 0, sizeof cols), memset(boxes, 0, sizeof boxes);
    for (int i = 0; i < cells; i++) {
        const char *at = strchr(SYMBOLS, text[i]);
        g[i] = at && *at ? (int)(at - SYMBOLS) : -1;
        if (g[i] < 0 || g[i] > n) return -1;
        if (g[i] == 0) continue;
        if (!(candidates(i) >> (g[i] - 1) & 1)) valid = 0;
        flip(i, g[i]);
    }
    return valid;
}

int main(void) {
    static char line[2048], text[1024];
    printf("READY name=example-c max_box=5\n");
    fflush(stdout);
    while (fgets(line, sizeof line, stdin) && sscanf(line, "%1023s %d", text, &limit) == 2) {
        cells = (int)strlen(text);
        for (box = 2; box <= 5 && box * box * box * box != cells; box++) continue;
        n = box * box;
        found = nodes = 0;
        int valid = box > 5 ? -1 : read_grid(text);
        if (valid < 0) {
            printf("UNKNOWN - reason=not_a_grid_from_4x4_to_25x25\n");
            fflush(stdout);
            continue;
        }
        if (valid) search();
        first[cells] = '\0';
        printf("%s %s solutions=%d nodes=%d\n", found ? "SOLVED" : "UNSAT", found ? first : "-",
               found, nodes);
        fflush(stdout);
    }
    return 0;
}
