"""The progress display: periodic lines off a terminal, a redrawn line on one, quiet = none."""

from __future__ import annotations

import io
import random

from harness.cli.progress import Progress


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def row(status: str, backend: str = "mrv") -> dict:
    return {"backend": backend, "dataset": "datasets/hard95.txt", "status": status}


def test_off_a_terminal_one_line_every_interval() -> None:
    """Steps 1 s apart with a 5 s interval: lines at 1 s and 6 s, then the total time."""
    clock, out = Clock(), io.StringIO()
    with Progress(10, stream=out, interval=5.0, clock=clock, tty=False) as progress:
        for k in range(10):
            clock.now = k + 1.0
            progress.update(1, row("SOLVED"))
    lines = out.getvalue().splitlines()
    assert 3 == len(lines)  # at 1 s and 6 s (11 s never comes), then the total
    assert lines[0].startswith("solving 1/10 10% 0:01, ETA ?; mrv on datasets/hard95.txt")
    assert lines[1].startswith("solving 6/10 60% 0:06, ETA 0:04; mrv on datasets/hard95.txt")
    assert "done: 10 rows in 0:10; timeouts 0, errors 0, wrong 0" == lines[-1]


def test_the_eta_leaves_out_resumed_and_unavailable_rows() -> None:
    """900 rows resumed and 10 UNAVAILABLE at once, then a solve a second: a second a step."""
    clock = Clock()
    progress = Progress(1000, stream=io.StringIO(), clock=clock, tty=False)
    progress.update(900, None)
    for _ in range(10):
        progress.update(1, row("UNAVAILABLE"))
    for k in range(11):
        clock.now = 30.0 + k
        progress.update(1, row("SOLVED"))
    assert progress.line().startswith("solving 921/1,000 92% 0:40, ETA 1:19;")


def test_a_resumed_run_s_total_counts_the_new_rows_apart() -> None:
    """900 rows from before, 100 new, 1 of them a timeout: the total line says which is which."""
    clock, out = Clock(), io.StringIO()
    with Progress(1000, stream=out, clock=clock, tty=False) as progress:
        progress.update(900, None)
        progress.update(1, row("TIMEOUT"))
        progress.update(99, row("SOLVED"))
        clock.now = 12.0
    expected = "done: 100 new rows and 900 from before in 0:12; timeouts 1, errors 0, wrong 0"
    assert expected + " in the new" == out.getvalue().splitlines()[-1]


def test_one_row_is_one_row() -> None:
    """The total of a one-row run: '1 row', not '1 rows'."""
    progress = Progress(1, stream=io.StringIO(), clock=Clock(), tty=False)
    progress.update(1, row("SOLVED"))
    assert progress.final_line().startswith("done: 1 row in 0:00;")


def test_the_eta_leaves_out_the_time_before_the_first_step() -> None:
    """A 30 s start, then a step a second: the ETA is a second a step left."""
    clock = Clock()
    progress = Progress(100, stream=io.StringIO(), clock=clock, tty=False)
    for k in range(11):
        clock.now = 30.0 + k
        progress.update(1, row("SOLVED"))
    assert progress.line().startswith("solving 11/100 11% 0:40, ETA 1:29;")


def test_counts_timeouts_errors_and_wrong() -> None:
    """TIMEOUT, ERROR, MEMOUT and WRONG rows are counted as they come."""
    progress = Progress(5, stream=io.StringIO(), quiet=True)
    for status in ("TIMEOUT", "ERROR", "MEMOUT", "WRONG", "SOLVED"):
        progress.update(1, row(status))
    assert {"timeouts": 1, "errors": 2, "wrong": 1} == progress.counts


def test_on_a_terminal_the_line_is_redrawn_in_place() -> None:
    """On a terminal: carriage returns, no newline until the total time."""
    clock, out = Clock(), io.StringIO()
    with Progress(2, stream=out, clock=clock, tty=True) as progress:
        progress.update(1, row("SOLVED", "dlx"))
        clock.now = 1.0
        progress.update(1, row("TIMEOUT", "dlx"))
    text = out.getvalue()
    assert 1 == text.count("\n")
    assert "dlx on datasets/hard95.txt" in text
    assert text.endswith("done: 2 rows in 0:01; timeouts 1, errors 0, wrong 0\n")


def test_quiet_prints_nothing() -> None:
    """--quiet: no progress and no total."""
    out = io.StringIO()
    with Progress(3, stream=out, quiet=True, tty=False) as progress:
        progress.update(3, None)
    assert "" == out.getvalue()


def test_an_interrupted_run_prints_no_total() -> None:
    """An exception leaving the block: the total line is left out."""
    out = io.StringIO()
    try:
        with Progress(3, stream=out, tty=False, interval=1e9) as progress:
            progress.update(1, None)
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert "done:" not in out.getvalue()


def test_a_line_fits_its_width_and_keeps_the_counts() -> None:
    """What runs now loses the dataset's folder, then its end, to fit; the counts stay."""

    def line(width: int) -> str:  # a fresh display each: a line that drops folders sticks
        progress = Progress(1425, stream=io.StringIO(), quiet=True, clock=Clock(), tty=False)
        progress.update(333, row("TIMEOUT", "python-constraint"))
        return progress.line(width)

    counts = "; timeouts 1, errors 0, wrong 0"
    head = "solving 333/1,425 23% 0:00, ETA ?; "
    expected = [
        head + "python-constraint on datasets/hard95.txt" + counts,
        head + "python-constraint on hard95.txt" + counts,
        head + "python-constrain..." + counts,
    ]
    assert expected == [line(width) for width in (120, 100, 85)]


def test_once_a_line_drops_the_folders_every_later_one_does() -> None:
    """A long backend needs the room: from then on a short one's line drops them too."""
    progress = Progress(3, stream=io.StringIO(), quiet=True, clock=Clock(), tty=False)
    lines = []
    for backend in ("mrv", "python-constraint", "mrv"):
        progress.update(1, row("SOLVED", backend))
        lines.append(progress.line(90).split("; ")[1])
    expected = ["mrv on datasets/hard95.txt", "python-constraint on hard95...", "mrv on hard95.txt"]
    assert expected == lines


def test_the_eta_counts_each_backend_at_its_own_pace() -> None:
    """One slow backend (10 s) and four fast ones (0.1 s) on 20 puzzles, in a shuffled order
    per puzzle: from the second puzzle to the tenth, the ETA stays within 10% of the time
    truly left, wherever the slow one falls in a puzzle's order (the rate of all the steps
    so far gave 0.7 to 1.4 times that time there)."""
    cost = {"slow": 10.0, "a": 0.1, "b": 0.1, "c": 0.1, "d": 0.1}
    plan = []
    for puzzle in range(20):
        order = list(cost)
        random.Random(puzzle).shuffle(order)
        plan += order
    clock = Clock()
    progress = Progress(len(plan), stream=io.StringIO(), clock=clock, tty=False)
    errors = []
    for k, backend in enumerate(plan):
        clock.now += cost[backend]
        progress.update(1, {**row("SOLVED", backend), "wall_s": cost[backend]})
        left = sum(cost[b] for b in plan[k + 1 :])
        if len(cost) <= k < len(plan) // 2:
            errors.append(abs(progress.estimate(clock.now) - left) / left)
    assert max(errors) < 0.1


def test_the_eta_waits_until_every_backend_was_timed() -> None:
    """'?' until a backend solves a second time: by then the plan has run every backend."""
    clock = Clock()
    progress = Progress(10, stream=io.StringIO(), clock=clock, tty=False)
    etas = []
    for k, backend in enumerate(["a", "b", "a", "b"]):
        clock.now = k + 1.0
        progress.update(1, {**row("SOLVED", backend), "wall_s": 1.0})
        etas.append(progress.line().split("ETA ")[1].split(";")[0])
    assert ["?", "?", "0:07", "0:06"] == etas


def test_a_resumed_run_says_first_how_many_rows_were_done() -> None:
    """A resumed run's first line says 900 rows were done; the bar, drawn with the first new
    row, counts them: 901/1,000, not 1/1,000."""
    clock, out = Clock(), io.StringIO()
    with Progress(1000, stream=out, clock=clock, tty=False) as progress:
        progress.resuming(900)
        for _ in range(900):
            progress.update(1, None)
        clock.now = 2.0
        progress.update(1, row("SOLVED"))
    lines = out.getvalue().splitlines()
    assert "resuming: 900 rows already done" == lines[0]
    assert lines[1].startswith("solving 901/1,000 90% 0:02, ETA ?; mrv on datasets/hard95.txt")
