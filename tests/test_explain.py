"""Tests of `harness explain`, `harness rate`, difficulty tiers and run tables by tier.

Every step explain prints is read back from the text and checked against the solution
another backend finds: a placement of a wrong digit, or an elimination of the true digit,
fails. Steps made under a wrong guess are exempt, but such a guess must be backtracked.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from backends.puzzle import Puzzle, canonical_alphabet
from harness.cli import main
from harness.exit_codes import RunExit
from harness.puzzles import catalog, rating
from harness.puzzles.readers import read_puzzles
from tests.puzzles import PROJECT_DATASETS, shipped
from tests.test_logic import MULTI, SIXTEEN, STRATEGY_PUZZLES, known_solution

LINE = re.compile(r"^\s*\d+\. (?P<indent>(?:  )*)(?P<text>\S.*)$")
PLACE = re.compile(r"^r(\d+)c(\d+) = (\w) \(")
GUESS = re.compile(r"^guess r(\d+)c(\d+) = (\w) \(depth (\d+);")
REMOVE = re.compile(r"^remove (.+?) \(")


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def read_claims(text: str, n: int) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]:
    """The (cell, digit, depth) placements and eliminations a step line claims."""
    value = {ch: i + 1 for i, ch in enumerate(canonical_alphabet(n))}

    def cell(r: str, c: str) -> int:
        return (int(r) - 1) * n + int(c) - 1

    placed = [(cell(m[1], m[2]), value[m[3]]) for m in [PLACE.match(text)] if m]
    removed = []
    match = REMOVE.match(text)
    if match:
        for part in match[1].split("; "):
            digit, _, cells = part.partition(" from ")
            for name in cells.split(", "):
                r, c = name[1:].split("c")
                removed.append((cell(r, c), value[digit]))
    return placed, removed


def check_explanation(lines: list[str], solution: tuple[int, ...], n: int) -> int:
    """Check every printed step against ``solution``; the number of steps checked."""
    right: list[bool] = []  # per guess in force: was it the solution's digit?
    open_wrong: list[int] = []  # depths of wrong guesses not yet backtracked
    checked = 0
    for line in lines:
        match = LINE.match(line)
        if not match:
            continue
        depth, text = len(match["indent"]) // 2, match["text"]
        right = right[:depth]
        guess = GUESS.match(text)
        if guess:
            cell = (int(guess[1]) - 1) * n + int(guess[2]) - 1
            good = solution[cell] == canonical_alphabet(n).index(guess[3]) + 1
            right.append(good)
            assert int(guess[4]) == depth + 1
            if not good:
                open_wrong.append(depth + 1)
            continue
        if text.startswith("backtrack:"):
            open_wrong = [d for d in open_wrong if d != depth + 1]
            continue
        placed, removed = read_claims(text, n)
        if text.startswith("solution"):
            continue
        assert placed or removed, f"unreadable step line: {line!r}"
        if all(right):
            assert [] == [(c, d) for c, d in placed if solution[c] != d], line
            assert [] == [(c, d) for c, d in removed if solution[c] == d], line
            checked += 1
    assert [] == open_wrong
    return checked


def explained(text: str) -> tuple[list[str], tuple[int, ...], int]:
    puzzle = Puzzle.parse(text)
    return rating.explain_lines(puzzle), known_solution(puzzle), puzzle.n


@pytest.mark.parametrize("name", sorted(STRATEGY_PUZZLES))
def test_every_step_true_on_strategy_puzzles(name: str) -> None:
    """Every printed step of each strategy's pinned puzzle is true."""
    lines, solution, n = explained(STRATEGY_PUZZLES[name])
    assert check_explanation(lines, solution, n) > 0
    assert any(name in line for line in lines)


def test_every_step_true_on_sixteen() -> None:
    """Every printed step on a 16x16 puzzle (letters as digits, one guess) is true."""
    lines, solution, n = explained(SIXTEEN)
    assert check_explanation(lines, solution, n) > 100
    assert any(GUESS.match(LINE.match(x)["text"]) for x in lines if LINE.match(x))


def test_every_step_true_on_norvig_hardest(shared_datasets: Path) -> None:
    """Every printed step on each of Norvig's hardest puzzles is true."""
    for record in read_puzzles(str(shared_datasets / "norvig-hardest.txt")).records:
        lines = rating.explain_lines(record.puzzle)
        assert check_explanation(lines, known_solution(record.puzzle), 9) > 0


@pytest.mark.slow
def test_every_step_true_on_norvig_top95(shared_datasets: Path) -> None:
    """Every printed step on each of Norvig's top95 puzzles is true."""
    for record in read_puzzles(str(shared_datasets / "norvig-top95.txt")).records:
        lines = rating.explain_lines(record.puzzle)
        assert check_explanation(lines, known_solution(record.puzzle), 9) > 0


def test_checker_catches_a_wrong_step() -> None:
    """The check fails on a line that removes the true digit (the test can fail)."""
    lines, solution, n = explained(STRATEGY_PUZZLES["x-wing"])
    true_digit = solution[0]
    with pytest.raises(AssertionError):
        check_explanation([f"1. remove {true_digit} from r1c1 (made up)"], solution, n)
    assert lines  # the real explanation exists


def test_explain_cli_marks_guesses() -> None:
    """explain of a two-solution puzzle prints guesses with their depth, says it is not
    unique, and rates it multi-solution."""
    result = invoke("explain", MULTI)
    assert 0 == result.exit_code
    assert re.search(r"guess r\dc\d = \d \(depth 1;", result.output)
    lines = result.output.splitlines()
    assert lines[-2].startswith("not unique: dlx finds two or more solutions (limit=2)")
    assert "tier multi-solution" in lines[-1]


def test_explain_cli_file_line(tmp_path: Path) -> None:
    """FILE:LINE explains the puzzle starting at that line, and ends with its rating."""
    path = tmp_path / "p.txt"
    path.write_text(f"# comment\n{STRATEGY_PUZZLES['xy-wing']}\n")
    result = invoke("explain", f"{path}:2")
    assert 0 == result.exit_code
    assert "(xy-wing: pivot" in result.output
    assert result.output.splitlines()[-1].startswith("rating: tier hard; hardest strategy xy-wing")


def test_explain_cli_bad_line(tmp_path: Path) -> None:
    """A FILE:LINE with no puzzle there is one error line, naming the puzzle's line, exit 2."""
    path = tmp_path / "p.txt"
    path.write_text(f"{STRATEGY_PUZZLES['xy-wing']}\n")
    result = invoke("explain", f"{path}:5")
    line = f"harness: error: {path}:5: no puzzle starts here; its one puzzle starts on line 1\n"
    assert (RunExit.USAGE, line) == (result.exit_code, result.output)


def test_explain_cli_bad_text() -> None:
    """A malformed puzzle text is one error line naming the problem."""
    result = invoke("explain", "12345")
    assert RunExit.USAGE == result.exit_code
    assert "5 cells is not a Sudoku grid" in result.output


def test_explain_unsat() -> None:
    """An unsolvable puzzle's explanation ends with the contradiction and tier unsolvable."""
    text = "1234567.." + "." * 18 + ".......8." + "." * 18 + "........8" + "." * 18
    lines = rating.explain_lines(Puzzle.parse(text))
    assert ["no solution: no place for 8 in row 1"] == [x for x in lines if x.startswith("no ")]
    assert lines[-1].startswith("rating: tier unsolvable")


@pytest.mark.parametrize(
    ("level", "guesses", "tier"),
    [(0, 0, "easy"), (1, 0, "medium"), (2, 0, "hard"), (3, 0, "expert"), (3, 1, "needs-guess")],
)
def test_tier_for(level: int, guesses: int, tier: str) -> None:
    """Tiers follow the hardest level, and any guess makes a puzzle needs-guess."""
    assert tier == rating.tier_for(level, guesses)


def test_rate_easy_and_expert() -> None:
    """rate() gives the hardest strategy, level, score and tier."""
    easy = rating.rate(Puzzle.parse(STRATEGY_PUZZLES["hidden single"]))
    chain = rating.rate(Puzzle.parse(STRATEGY_PUZZLES["xy-chain"]))
    assert "easy" == easy.tier
    assert 0 == easy.level
    assert easy.solved_without_guess
    assert ("expert", 3, 0) == (chain.tier, chain.level, chain.guesses)
    assert chain.counts["xy-chain"] >= 1
    assert chain.score >= 6.2


def test_rate_needs_guess() -> None:
    """A unique puzzle the ladder gets stuck on: level 4, score 10, hardest 'guess'."""
    rated = rating.rate(shipped("needs-guess.txt")[0])
    assert ("needs-guess", True) == (rated.tier, rated.unique)
    assert 4 == rated.level
    assert 10.0 == rated.score
    assert "guess" == rated.hardest_strategy
    assert not rated.solved_without_guess


def test_rate_multi_solution() -> None:
    """A two-solution puzzle is multi-solution, not needs-guess, though it took a guess."""
    rated = rating.rate(Puzzle.parse(MULTI))
    assert ("multi-solution", False, 4) == (rated.tier, rated.unique, rated.level)


def test_rate_datasets_and_explain_agree_on_multi_txt() -> None:
    """Every puzzle of the shipped multi.txt (30, 116, 3, 4 and 6 solutions): rate and the
    datasets listing both say multi-solution, and explain says the first is not unique."""
    path = PROJECT_DATASETS / "multi.txt"
    rows = rating.rate_records(read_puzzles(str(path)).records)
    listed = catalog.summarise(path).tiers
    first = invoke("explain", f"{path}:{rows[0]['line']}").output
    assert (["multi-solution"] * 5, {"multi-solution": 5}) == ([r["tier"] for r in rows], listed)
    assert "\nnot unique: dlx finds two or more solutions" in first


def test_rate_cli_writes_csv(tmp_path: Path) -> None:
    """harness rate writes one row per puzzle with the difficulty columns and a tier table."""
    path = tmp_path / "set.txt"
    path.write_text(f"{STRATEGY_PUZZLES['hidden single']}\n{MULTI}\n")
    out = tmp_path / "rated.csv"
    result = invoke("rate", "-q", "--out", str(out), str(path))
    with out.open() as handle:
        rows = list(csv.DictReader(handle))
    assert (0, ["easy", "multi-solution"]) == (result.exit_code, [r["tier"] for r in rows])
    assert set(rating.CSV_COLUMNS) == set(rows[0])
    assert re.search(r"^easy\s+1\s+50\.0%", result.output, re.MULTILINE)


def test_rate_cli_default_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --out the CSV is results/<stem>-rating.csv."""
    monkeypatch.chdir(tmp_path)
    Path("mine.txt").write_text(f"{STRATEGY_PUZZLES['pointing']}\n")
    result = invoke("rate", "-q", "mine.txt")
    assert 0 == result.exit_code
    assert Path("results/mine-rating.csv").is_file()


def test_run_by_tier(tmp_path: Path) -> None:
    """harness run --by-tier prints the summary per difficulty tier."""
    path = tmp_path / "set.txt"
    path.write_text(f"{STRATEGY_PUZZLES['hidden single']}\n{STRATEGY_PUZZLES['xy-wing']}\n")
    out = tmp_path / "run.csv"
    result = invoke("run", "-q", "-b", "mrv", "--by-tier", "--out", str(out), str(path))
    section = result.output.split("by difficulty tier")[1]
    rows = [line.split() for line in section.splitlines()[2:4]]
    assert (0, ["easy", "hard"]) == (result.exit_code, [r[2] for r in rows])


def test_explain_file_line_where_no_puzzle_starts_says_where_they_do(tmp_path: Path) -> None:
    """FILE:1 of a file with a comment header: one line naming the lines its puzzles start
    on (LINE counts the file's lines, not its puzzles), exit 2."""
    path = tmp_path / "set.txt"
    path.write_text(f"# two puzzles\n# for the test\n{STRATEGY_PUZZLES['pointing']}\n{MULTI}\n")
    result = invoke("explain", f"{path}:1")
    line = f"harness: error: {path}:1: no puzzle starts here; its 2 puzzles start on lines 3-4\n"
    assert (RunExit.USAGE, line) == (result.exit_code, result.output)
    assert 0 == invoke("explain", f"{path}:3").exit_code
