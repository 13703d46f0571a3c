"""A cmd: solver in Python: Knuth's Algorithm X on dicts of sets (9x9 grids)."""

import sys

# A row of the exact cover: digit d in cell (r, c); the four constraints it satisfies.
ROWS = {(r, c, d): [("rc", r, c), ("rd", r, d), ("cd", c, d), ("bd", r // 3 * 3 + c // 3, d)]
        for r in range(9) for c in range(9) for d in range(1, 10)}  # fmt: skip
COLUMNS = {}  # a constraint -> the rows that satisfy it
for row, constraints in ROWS.items():
    for j in constraints:
        COLUMNS.setdefault(j, set()).add(row)


def select(X, row):  # take row: drop its constraints, and every row that clashes with it
    saved = []
    for j in ROWS[row]:
        for other in X[j]:
            for k in ROWS[other]:
                if k != j:
                    X[k].discard(other)
        saved.append((j, X.pop(j)))
    return saved


def deselect(X, saved):
    for j, rows in reversed(saved):
        X[j] = rows
        for other in rows:
            for k in ROWS[other]:
                X[k].add(other)


def search(X, chosen, found, limit, stats):  # X: constraint -> rows that satisfy it
    stats[0] += 1
    if not X:
        return found.append(sorted(chosen)) or len(found) >= limit
    col = min(X, key=lambda j: len(X[j]))
    for row in list(X[col]):
        saved = select(X, row)
        chosen.append(row)
        if search(X, chosen, found, limit, stats):
            return True
        chosen.pop()
        deselect(X, saved)
    return False


print("READY name=example-python max_box=3", flush=True)
for line in sys.stdin:
    text, limit = line.split()
    X = {j: set(rows) for j, rows in COLUMNS.items()}
    givens = [(i // 9, i % 9, int(ch)) for i, ch in enumerate(text) if ch != "."]
    found, stats = [], [0]
    if all(all(j in X and g in X[j] for j in ROWS[g]) and select(X, g) for g in givens):
        search(X, givens, found, int(limit), stats)
    grid = "".join(str(d) for _, _, d in found[0]) if found else "-"
    status = "SOLVED" if found else "UNSAT"
    print(status, grid, f"solutions={len(found)} nodes={stats[0]}", flush=True)
