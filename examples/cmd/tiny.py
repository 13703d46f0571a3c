import sys  # A complete cmd: solver: fewest-candidates backtracking on text, counts to LIMIT.


def candidates(g, i, n, b):
    r, c = divmod(i, n)
    box = [(r // b * b + k // b) * n + c // b * b + k % b for k in range(n)]
    peers = [r * n + k for k in range(n)] + list(range(c, n * n, n)) + box
    return set("123456789ABCDEFGHIJKLMNOP"[:n]) - {g[j] for j in peers}


def search(g, n, b, limit, found, stats):
    stats[0] += 1
    empty = [i for i, ch in enumerate(g) if ch == "."]
    if not empty:
        return found.append("".join(g)) or len(found) >= limit
    i = min(empty, key=lambda i: len(candidates(g, i, n, b)))
    for d in sorted(candidates(g, i, n, b)):
        g[i] = d
        if search(g, n, b, limit, found, stats):
            return True
    g[i] = "."
    return False


print("READY name=tiny-python", flush=True)
for line in sys.stdin:
    puzzle, limit = line.split()
    n = round(len(puzzle) ** 0.5)
    found, stats = [], [0]
    search(list(puzzle), n, round(n**0.5), int(limit), found, stats)
    grid = found[0] if found else "-"
    print(
        "SOLVED" if found else "UNSAT", grid, f"solutions={len(found)} nodes={stats[0]}", flush=True
    )
