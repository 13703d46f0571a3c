/* The same solver behind cmd: instead of lib: (for a side-by-side comparison).
   Build: cc -O2 -o solver examples/lib/main.c */
#include <stdio.h>
#include "solver.c"

int main(void) {
    char puzzle[700], solution[700];
    long long limit;
    printf("READY %s\n", sudoku_solver_info());
    fflush(stdout);
    while (scanf("%699s %lld", puzzle, &limit) == 2) {
        int64_t st[4] = {-1, -1, -1, -1};
        int64_t found = sudoku_solve(puzzle, limit, solution, st);
        if (found < 0) printf("UNKNOWN - returned=%lld", (long long)found);
        else printf("%s %s solutions=%lld", found ? "SOLVED" : "UNSAT", found ? solution : "-",
                    (long long)found);
        const char *names[4] = {"nodes", "guesses", "backtracks", "time_us"};
        for (int k = 0; k < 4; k++) /* what the solver filled in; time_us from own_ns */
            if (st[k] >= 0)
                printf(" %s=%.*f", names[k], k == 3 ? 3 : 0, st[k] / (k == 3 ? 1e3 : 1.0));
        printf("\n");
        fflush(stdout);
    }
    return 0;
}
