/* A complete cmd: solver for 9x9: fewest-candidates backtracking, counts to LIMIT. */
#include <stdio.h>
#include <string.h>
static char g[82], first[82]; static int limit, found; static long nodes;
static int cands(int i) {  /* bit d set: digit d+1 is free at cell i */
    int r = i / 9, c = i % 9, used = 0;
    for (int k = 0; k < 9; k++) {
        int cells[3] = {r * 9 + k, k * 9 + c, (r / 3 * 3 + k / 3) * 9 + c / 3 * 3 + k % 3};
        for (int j = 0; j < 3; j++) if (g[cells[j]] != '.') used |= 1 << (g[cells[j]] - '1');
    }
    return ~used & 511;
}
static void search(void) {
    int best = -1, bc = 10, m = 0;
    nodes++;
    for (int i = 0; i < 81; i++) if (g[i] == '.') {
        int n = __builtin_popcount(cands(i)); if (n < bc) { bc = n; best = i; m = cands(i); }
    }
    if (best < 0) { if (!found++) memcpy(first, g, 82); return; }
    for (int d = 0; d < 9 && found < limit; d++)
        if (m >> d & 1) { g[best] = '1' + d; search(); g[best] = '.'; }
}
int main(void) {
    printf("READY name=tiny-c max_box=3\n"); fflush(stdout);
    while (scanf("%81s %d", g, &limit) == 2) {
        if (strlen(g) != 81) { printf("UNKNOWN - reason=9x9_only\n"); fflush(stdout); continue; }
        found = 0; nodes = 0; search();
        printf("%s %s solutions=%d nodes=%ld\n", found ? "SOLVED" : "UNSAT", found ? first : "-", found, nodes);
        fflush(stdout);
    }
}
