"""Tests for harness/puzzles/catalog.py and the ``harness datasets`` command."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from harness import cli
from harness.puzzles import catalog, rating
from harness.puzzles.catalog import (
    PUBLIC_COLLECTIONS,
    describe_shipped,
    shipped_datasets,
    summarise,
)
from harness.puzzles.readers import PuzzleRecord, read_puzzles
from tests.puzzles import PROJECT_DATASETS

UNIQUE_4X4 = "14..3...4..1...."
TWO_4X4 = ".4..3...4..1...."
UNSAT_4X4 = "14.33...4..1...."
SOLVED_4X4 = "1423324141322314"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A datasets folder with one tdoku-form file and one plain file."""
    (tmp_path / "mixed.txt").write_text(
        "# Three 4x4 puzzles for the tests.\n"
        "# reproduce: harness generate --size 4 --count 3 --seed 1\n"
        f"{UNIQUE_4X4}:1\n{TWO_4X4}:4\n{UNSAT_4X4}:0\n",
        encoding="utf-8",
    )
    (tmp_path / "plain.txt").write_text(f"{UNIQUE_4X4}\n{SOLVED_4X4}\n", encoding="utf-8")
    return tmp_path


def test_summary_counts_sizes_givens_and_command(folder: Path) -> None:
    """A file's summary gives its puzzles, sizes, givens, header line and reproduce command."""
    summary = summarise(folder / "mixed.txt", rate=None, count=None)
    assert (3, {4: 3}, (4, 5, 6)) == (summary.puzzles, summary.sizes, summary.givens)
    assert "Three 4x4 puzzles for the tests." == summary.summary
    assert "harness generate --size 4 --count 3 --seed 1" == summary.command


def test_summary_reads_stated_and_found_solution_counts(folder: Path) -> None:
    """tdoku counts the file states are kept; dlx's limit-2 counts are named unique/2+/none."""
    summary = summarise(folder / "mixed.txt", rate=None)
    assert {0: 1, 1: 1, 4: 1} == summary.stated
    assert {"none": 1, "unique": 1, "2+": 1} == summary.found


def test_only_unique_puzzles_are_rated(folder: Path) -> None:
    """Unsolvable and multi-solution puzzles get their own labels; only the unique is rated."""
    rated: list[str] = []

    def rate(record: PuzzleRecord) -> str:
        rated.append(record.puzzle.to_string())
        return "easy"

    tiers = summarise(folder / "mixed.txt", rate=rate).tiers
    assert {"easy": 1, "unsolvable": 1, catalog.MULTI: 1} == tiers
    assert [UNIQUE_4X4] == rated


def test_real_rating_gives_tiers(folder: Path) -> None:
    """With harness.puzzles.rating, a 4x4 with many givens and a full grid are both easy."""
    assert {"easy": 2} == summarise(folder / "plain.txt").tiers


def test_describe_shipped_names_every_fact(folder: Path) -> None:
    """The text block of a file shows its count, size, solutions, tiers and command."""
    text = "\n".join(describe_shipped(shipped_datasets(folder, rate=lambda r: "easy")))
    for expected in (
        "mixed.txt: 3 puzzles; 4x4; givens 4-6 (median 5)",
        "solutions: none 1, unique 1, 2+ 1 (dlx, limit=2)",
        "difficulty: easy 1, multi-solution 1, unsolvable 1",
        "made by: harness generate --size 4 --count 3 --seed 1",
        "plain.txt: 2 puzzles; 4x4",
    ):
        assert expected in text


def test_shipped_sets_match_their_solution_claims() -> None:
    """dlx finds every shipped puzzle unique, except multi.txt (2+) and unsolvable.txt (none)."""
    found = {d.name: d.found for d in shipped_datasets(PROJECT_DATASETS, rate=None)}
    expected = {
        path.name: {"unique": len(read_puzzles(str(path)).records)}
        for path in PROJECT_DATASETS.glob("*.txt")
    }
    expected.update({"multi.txt": {"2+": 5}, "unsolvable.txt": {"none": 5}})
    assert expected == found


def test_shipped_sets_read_cleanly_and_name_their_command() -> None:
    """Every shipped file has no bad line and a reproduce command in its header."""
    summaries = shipped_datasets(PROJECT_DATASETS, rate=None, count=None)
    assert [] == [d.name for d in summaries if d.bad_lines or not d.command]


@pytest.mark.parametrize("collection", PUBLIC_COLLECTIONS, ids=lambda c: c.name)
def test_public_collections_say_where_size_and_format(collection: catalog.PublicCollection) -> None:
    """Each public collection names a web address, its size and its file format."""
    assert any("http" in where for where in collection.where)
    assert collection.size and collection.format


def test_cli_datasets_lists_shipped_and_public() -> None:
    """`harness datasets` names every shipped file with its count, and each public set."""
    result = CliRunner().invoke(cli.main, ["datasets"])
    assert 0 == result.exit_code, result.output
    for path in sorted(PROJECT_DATASETS.glob("*.txt")):
        count = len(read_puzzles(str(path)).records)
        assert f"{path.name}: {count} puzzles" in result.output
    for name in ("top95", "17-clue", "top1465", "hardest", "Kaggle"):
        assert name in result.output
    assert "difficulty:" not in result.output


def test_cli_datasets_solves_no_puzzle_to_list_files(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`harness datasets` only reads the files (a solve would fail here), and says how to
    have their puzzles solved."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a puzzle was solved")

    for name in ("rate", "count_solutions", "solve_puzzle"):
        monkeypatch.setattr(rating, name, refuse)
    result = CliRunner().invoke(cli.main, ["datasets", "--dir", str(folder)])
    assert (0, None) == (result.exit_code, result.exception)
    assert "--solve also counts solutions and rates difficulty" in result.output
    assert "mixed.txt: 3 puzzles; 4x4; givens 4-6 (median 5)" in result.output


def test_cli_datasets_solve_rates_a_folder(folder: Path) -> None:
    """`harness datasets --solve --dir FOLDER` shows the solution counts and difficulty mix."""
    result = CliRunner().invoke(cli.main, ["datasets", "--solve", "--dir", str(folder)])
    assert 0 == result.exit_code, result.output
    assert "solutions: none 1, unique 1, 2+ 1 (dlx, limit=2)" in result.output
    assert "difficulty: easy 1, multi-solution 1, unsolvable 1" in result.output
    assert "difficulty: easy 2" in result.output


def test_cli_datasets_refuses_a_missing_folder(tmp_path: Path) -> None:
    """A --dir that does not exist is a usage error (exit 2) naming it."""
    missing = tmp_path / "nowhere"
    result = CliRunner().invoke(cli.main, ["datasets", "--dir", str(missing)])
    assert 2 == result.exit_code
    assert "nowhere" in result.output
