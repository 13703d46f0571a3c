"""A cmd: solver in Python: Knuth's Algorithm X on dicts of sets, for any grid size."""

import sys

SYMBOLS = ".123456789ABCDEFGHIJKLMNOP"  # the canonical one-line form: "." is a blank


def exact_cover(box):  # rows: (r, c, d) -> its four constraints; columns: the reverse
    n = box * box
    rows = {(r, c, d): [("rc", r, c), ("rd", r, d), ("cd", c, d), ("bd", r // box, c // box, d)]
            for r in range(n) for c in range(n) for d in range(1, n + 1)}  # fmt: skip
    columns = {}
    for row, constraints in rows.items():
        for j in constraints:
            columns.setdefault(j, set()).add(row)
    return rows, columns


def select(X, rows, row):  # take row: drop its constraints and every row clashing with it
    saved = []
    for j in rows[row]:
        for other in X[j]:
            for k in rows[other]:
                if k != j:
                    X[k].discard(other)
        saved.append((j, X.pop(j)))
    return saved


def deselect(X, rows, saved):
    for j, taken in reversed(saved):
        X[j] = taken
        for other in taken:
            for k in rows[other]:
                X[k].add(other)


def search(X, rows, chosen, found, limit, stats):  # X: constraint -> rows satisfying it
    stats[0] += 1
    if not X:
        return found.append(sorted(chosen)) or len(found) >= limit
    col = min(X, key=lambda j: len(X[j]))
    for row in list(X[col]):
        saved = select(X, rows, row)
        chosen.append(row)
        if search(X, rows, chosen, found, limit, stats):
            return True
        chosen.pop()
        deselect(X, rows, saved)
    return False


print("READY name=example-python max_box=5", flush=True)
covers = {}
for line in sys.stdin:
    text, limit = line.split()
    box = round(len(text) ** 0.25)
    if box not in covers:
        covers[box] = exact_cover(box)
    rows, columns = covers[box]
    X = {j: set(taken) for j, taken in columns.items()}
    n = box * box
    givens = [(i // n, i % n, SYMBOLS.index(ch)) for i, ch in enumerate(text) if ch != "."]
    found, stats = [], [0]
    if all(all(j in X and g in X[j] for j in rows[g]) and select(X, rows, g) for g in givens):
        search(X, rows, givens, found, int(limit), stats)
    grid = "".join(SYMBOLS[d] for _, _, d in found[0]) if found else "-"
    status = "SOLVED" if found else "UNSAT"
    print(status, grid, f"solutions={len(found)} nodes={stats[0]}", flush=True)
