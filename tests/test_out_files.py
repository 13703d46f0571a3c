"""What a run may write: --out a regular file or a new name, its companions its own, one run
per file whatever its name."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.exit_codes import RunExit
from harness.results import ResultsError, RowWriter, columns_for, exclusive, provenance
from harness.results.provenance import meta_path_for
from tests.conftest import PROJECT, pattern_puzzle
from tests.results_file import read_rows

#: A bash function ``H`` that runs the harness's console script.
HARNESS = f"H() {{ '{sys.executable}' -c 'from harness.cli.entry import main; main()' \"$@\"; }}"


def invoke(*args: object):
    return CliRunner().invoke(main, [str(a) for a in args])


def puzzle_file(path: Path, count: int = 3) -> Path:
    path.write_text("".join(pattern_puzzle(2, 2 + k % 2).to_string() + "\n" for k in range(count)))
    return path


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return puzzle_file(tmp_path / "p.txt")


def made_run(out: Path, data: Path, *args: str) -> Path:
    """A completed run of mrv (or ``args``) to ``out``."""
    result = invoke("run", "-q", *(args or ("-b", "mrv")), "--out", out, data)
    assert 0 == result.exit_code, result.output
    return out


def state(path: Path) -> tuple:
    """What a file is: its type, device number, symlink target and bytes, as far as each
    applies (read without following a symlink, without opening a device)."""
    info = os.lstat(path)
    kind = stat.S_IFMT(info.st_mode)
    if stat.S_ISLNK(info.st_mode):
        return kind, os.readlink(path)
    if stat.S_ISREG(info.st_mode):
        return kind, path.read_bytes()
    return kind, info.st_rdev


def device(path: Path) -> None:
    """A character device like /dev/null at ``path`` (a skip where that is not allowed)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("cannot make a device node here (not root)")


def lone_cr(out: Path, data: Path) -> None:
    """A run's CSV with every line break turned into a lone carriage return, its metadata
    beside it."""
    source = made_run(out.with_name("source.csv"), data)
    out.write_bytes(source.read_bytes().replace(b"\r\n", b"\r").replace(b"\n", b"\r"))
    shutil.copy(meta_path_for(source), meta_path_for(out))


@pytest.mark.parametrize(
    ("kind", "make", "message"),
    [
        ("device", lambda out, data: device(out), "n.csv is a device; --out must be a regular"),
        (
            "symlink to a run",
            lambda out, data: out.symlink_to(made_run(out.with_name("x.csv"), data)),
            "n.csv is a symlink; --out must be a regular file or a new name",
        ),
        (
            "symlink to /dev/null",
            lambda out, data: out.symlink_to(os.devnull),
            "n.csv is a symlink",
        ),
        (
            "text without a newline",
            lambda out, data: out.write_text("important data"),
            "n.csv: not a harness results CSV (no line break ends it)",
        ),
        (
            "results with lone CR line ends",
            lone_cr,
            "n.csv: not a harness results CSV (its lines end with a carriage return alone)",
        ),
    ],
)
def test_resume_leaves_what_is_not_a_run_untouched(
    kind: str, make, message: str, data: Path, tmp_path: Path
) -> None:
    """--resume --out X, X a device, a symlink, text without a newline, a CSV with lone CR
    line ends: one line naming X and why, exit 2, X as it was."""
    out = tmp_path / "n.csv"
    make(out, data)
    before = state(out)
    result = invoke("run", "-q", "--resume", "-b", "mrv", "--out", out, data)
    assert (RunExit.USAGE, before) == (result.exit_code, state(out)), kind
    assert 1 == len(result.output.splitlines()), result.output
    assert message in result.output


@pytest.mark.parametrize("meta", [None, b"{}", b'{"csv": "r.csv", "backends": []}'])
def test_resume_needs_the_metadata_of_a_run(meta: bytes | None, data: Path, tmp_path: Path) -> None:
    """A run's CSV without its metadata, or beside a JSON that is not a run's: --resume is
    one line, exit 2, the CSV untouched."""
    out = made_run(tmp_path / "r.csv", data)
    lines = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(b"".join(lines[:2]))  # interrupted after its first row
    meta_path_for(out).unlink()
    if meta is not None:
        meta_path_for(out).write_bytes(meta)
    before = out.read_bytes()
    result = invoke("run", "-q", "--resume", "-b", "mrv", "--out", out, data)
    assert (RunExit.USAGE, before) == (result.exit_code, out.read_bytes())
    assert 1 == len(result.output.splitlines()), result.output
    expected = {None: "no r.csv.meta.json beside it", b"{}": "its metadata has no"}
    assert expected.get(meta, "backends is empty") in result.output


# --- companions: named from the whole name, never shared --------------------------------


def test_runs_to_x_csv_and_x_txt_keep_their_own_companions(data: Path, tmp_path: Path) -> None:
    """A run to s.txt leaves s.csv's metadata alone; --resume of s.csv completes s.csv's run,
    with none of the other's rows."""
    first = made_run(tmp_path / "s.csv", data, "-b", "mrv")
    lines = first.read_bytes().splitlines(keepends=True)
    first.write_bytes(b"".join(lines[:2]))
    made_run(tmp_path / "s.txt", data, "-b", "ac3")
    result = invoke("run", "-q", "--resume", "--out", first)
    names = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("s."))
    assert 0 == result.exit_code, result.output
    assert {"mrv"} == {row["backend"] for row in read_rows(first)[1]}
    assert ["s.csv", "s.csv.meta.json", "s.txt", "s.txt.meta.json"] == names
    assert ["mrv"] == [b["spec"] for b in provenance.read_meta(first)["backends"]]


@pytest.mark.parametrize("name", ["o.log", "o.meta.json", "O.LOG"])
def test_an_out_named_like_a_companion_is_refused(name: str, data: Path, tmp_path: Path) -> None:
    """--out o.log (or .meta.json): one line, exit 2, nothing written."""
    result = invoke("run", "-q", "--out", tmp_path / name, data)
    assert (RunExit.USAGE, ["p.txt"]) == (result.exit_code, os.listdir(tmp_path))
    assert "is kept for the files beside a run's CSV" in result.output


def test_the_metadata_an_older_harness_wrote_is_read(data: Path, tmp_path: Path) -> None:
    """x.csv with x.meta.json (an older harness's name): --resume takes the run's settings
    from it and writes x.csv.meta.json, which keeps it as an earlier run."""
    out = made_run(tmp_path / "x.csv", data, "-b", "ac3")
    meta_path_for(out).rename(tmp_path / "x.meta.json")
    lines = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(b"".join(lines[:2]))
    result = invoke("run", "-q", "--resume", "--out", out)
    meta = json.loads(meta_path_for(out).read_text())
    assert 0 == result.exit_code, result.output
    assert (3, {"ac3"}) == (len(read_rows(out)[1]), {r["backend"] for r in read_rows(out)[1]})
    assert [str(out)] == [run["csv"] for run in meta["earlier_runs"]]


def test_an_older_metadata_of_another_csv_is_neither_read_nor_overwritten(
    data: Path, tmp_path: Path
) -> None:
    """s.meta.json an older harness wrote for s.txt is not s.csv's; a run to s, whose
    metadata is named s.meta.json, is refused and leaves it as it was."""
    meta = {**json.loads(meta_path_for(made_run(tmp_path / "r.csv", data)).read_text())}
    meta["csv"] = str(tmp_path / "s.txt")
    older = tmp_path / "s.meta.json"
    older.write_text(json.dumps(meta))
    result = invoke("run", "-q", "--out", tmp_path / "s", data)
    assert (None, RunExit.USAGE, json.dumps(meta)) == (
        provenance.read_meta(tmp_path / "s.csv"),
        result.exit_code,
        older.read_text(),
    )
    assert f"{older} is the metadata of {tmp_path / 's.txt'}" in result.output


def test_the_log_is_never_the_commands_own_output(data: Path, tmp_path: Path) -> None:
    """harness run --out r.csv > r.csv.log: one line on stderr, exit 2, no CSV."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    script = f"{HARNESS}\nH run -q -b mrv --out r.csv {data} > r.csv.log"
    done = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert (RunExit.USAGE, False) == (done.returncode, (tmp_path / "r.csv").exists())
    assert "r.csv.log is where the run writes its log, and this command's output" in done.stderr


def test_a_log_no_run_made_is_left_alone(data: Path, tmp_path: Path) -> None:
    """An r.csv.log that is there before any run to r.csv, or a symlink there: refused,
    one line, exit 2, the file and the link's target as they were."""
    log, target = tmp_path / "r.csv.log", tmp_path / "target.txt"
    log.write_text("mine\n")
    first = invoke("run", "-q", "--out", tmp_path / "r.csv", data)
    log.unlink()
    target.write_text("keep\n")
    log.symlink_to(target)
    second = invoke("run", "-q", "--out", tmp_path / "r.csv", data)
    assert [RunExit.USAGE] * 2 == [first.exit_code, second.exit_code]
    assert ("keep\n", True, False) == (
        target.read_text(),
        log.is_symlink(),
        (tmp_path / "r.csv").exists(),
    )
    assert "r.csv.log exists, but no run to" in first.output
    assert "r.csv.log is a symlink; a run's log must be a regular file" in second.output


# --- one run per file: the lock is the file's ---------------------------------------------


def test_a_hard_link_to_a_locked_csv_is_refused(tmp_path: Path) -> None:
    """While x.csv is locked, h.csv (a hard link to it) is refused too."""
    real, link = tmp_path / "x.csv", tmp_path / "h.csv"
    real.write_text("")
    os.link(real, link)
    with exclusive(real), pytest.raises(ResultsError) as refused, exclusive(link):
        pass
    assert f"{link} is being written by another run" in str(refused.value)


def test_the_lock_holds_each_new_version_of_the_file(tmp_path: Path) -> None:
    """The writer replaces the CSV (header, wider header): each new version is locked, by its
    name and by a hard link made to it."""
    out, link = tmp_path / "x.csv", tmp_path / "h.csv"
    refused = []
    with exclusive(out) as lock:
        writer = RowWriter(out, columns_for([]), lock=lock)
        writer.add_columns(["more"])
        os.link(out, link)
        for name in (out, link):
            with pytest.raises(ResultsError) as busy, exclusive(name):
                pass
            refused.append("is being written by another run" in str(busy.value))
        writer.close()
    with exclusive(link):  # free once the run is over
        pass
    assert [True, True] == refused


def test_a_symlinked_csv_is_refused_before_the_lock(tmp_path: Path) -> None:
    """exclusive() on a symlink: refused, the link and its target untouched."""
    real, link = tmp_path / "x.csv", tmp_path / "y.csv"
    real.write_text("a\n")
    link.symlink_to(real)
    with pytest.raises(ResultsError) as refused, exclusive(link):
        pass
    assert ("a\n", True) == (real.read_text(), link.is_symlink())
    assert f"{link} is a symlink" in str(refused.value)
