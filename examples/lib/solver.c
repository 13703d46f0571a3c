/* A lib: solver: bitmask backtracking on the cell with fewest candidates, 4x4 to 25x25.
   Build: cc -O2 -shared -fPIC -o libsolver.so examples/lib/solver.c */
#include <stdint.h>
#include <string.h>
#include <time.h>

static int cells, limit, found, unit[625][3];     /* each cell's row, column and box */
static uint32_t used[3][25], full;                /* digits taken in each row, column, box */
static unsigned char g[625];
static int64_t *st;
static char *out;
static const char symbol[] = ".123456789ABCDEFGHIJKLMNOP";

const char *sudoku_solver_info(void) { return "name=example-lib version=1 max_box=5"; }

static void flip(int i, int d) { for (int k = 0; k < 3; k++) used[k][unit[i][k]] ^= 1u << d; }

static int search(void) { /* 1 once the limit is reached */
    int best = -1, fewest = 99;
    uint32_t options = 0;
    st[0]++;
    for (int i = 0; i < cells && fewest > 1; i++) {
        if (g[i]) continue;
        uint32_t m = full & ~(used[0][unit[i][0]] | used[1][unit[i][1]] | used[2][unit[i][2]]);
        if (__builtin_popcount(m) < fewest) fewest = __builtin_popcount(m), best = i, options = m;
    }
    if (best < 0) {
        if (found++ == 0) for (int i = 0; i < cells; i++) out[i] = symbol[g[i]];
        return found >= limit;
    }
    st[1] += fewest > 1;
    for (; options; options &= options - 1) {
        int d = __builtin_ctz(options);
        g[best] = d, flip(best, d);
        if (search()) return 1;
        g[best] = 0, flip(best, d), st[2]++;
    }
    return 0;
}

int64_t sudoku_solve(const char *puzzle, int64_t lim, char *solution, int64_t *stats) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int box = 2, n, valid = 1;
    cells = (int)strlen(puzzle);
    while (box <= 5 && box * box * box * box != cells) box++;
    if (box > 5) return -1; /* not 4x4, 9x9, 16x16 or 25x25 */
    n = box * box, limit = (int)lim, found = 0, full = ((1u << n) - 1) << 1;
    st = stats, out = solution, st[0] = st[1] = st[2] = 0, memset(used, 0, sizeof used);
    for (int i = 0; i < cells; i++) {
        int r = i / n, c = i % n, ch = puzzle[i], b = r / box * box + c / box;
        unit[i][0] = r, unit[i][1] = c, unit[i][2] = b;
        g[i] = ch == '.' ? 0 : ch <= '9' ? ch - '0' : ch - 'A' + 10;
        if (g[i] > n) return -1; /* not a symbol of this size */
        if (g[i] && (used[0][r] | used[1][c] | used[2][b]) & (1u << g[i])) valid = 0;
        if (g[i]) flip(i, g[i]);
    }
    if (valid) search();
    solution[found ? cells : 0] = 0;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    stats[3] = (t1.tv_sec - t0.tv_sec) * 1000000000 + (t1.tv_nsec - t0.tv_nsec);
    return found;
}
