"""Start-up: what importing the command line loads, and the versions provenance records."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from click.testing import CliRunner

import backends
from backends.errors import UnknownBackendError
from harness.cli import main
from harness.results import provenance

#: The modules of ``backends`` the registry itself needs: the contract, the model, the errors.
REGISTRY_MODULES = ["backends", "backends.base", "backends.errors", "backends.puzzle"]


def imported_after(statement: str) -> dict[str, list[str] | bool]:
    """In a fresh interpreter: the ``backends`` modules, and whether importlib.metadata is in."""
    probe = (
        f"import sys, json; {statement}; print(json.dumps({{"
        "'backends': sorted(m for m in sys.modules if m.split('.')[0] == 'backends'), "
        "'metadata': 'importlib.metadata' in sys.modules}))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_importing_the_cli_imports_no_backend() -> None:
    """`import harness.cli.run` loads the registry's own modules, no backend, no metadata."""
    expected = {"backends": REGISTRY_MODULES, "metadata": False}
    assert expected == imported_after("import harness.cli, harness.cli.run")


def test_building_a_backend_imports_its_module_only() -> None:
    """make_backend('bitmask') imports backends.bitmask, not cpsat, z3 or the others."""
    found = imported_after("import backends; backends.make_backend('bitmask')")["backends"]
    assert ["backends.bitmask", "backends.bitmask_tables"] == sorted(
        set(found) - set(REGISTRY_MODULES)
    )


def test_every_registry_entry_names_its_class() -> None:
    """Each built-in name resolves to a Backend subclass whose own name is that name."""
    expected = {name: name for name in backends.REGISTRY}
    assert expected == {name: backends.backend_class(name).name for name in backends.REGISTRY}


def test_unknown_name_lists_the_registry() -> None:
    """An unknown name's error lists every built-in name."""
    with pytest.raises(UnknownBackendError) as caught:
        backends.backend_class("nosuch")
    assert [] == [name for name in backends.REGISTRY if name not in str(caught.value)]


def importlib_version(name: str) -> str | None:
    """What importlib.metadata.version says (None when the name is not installed)."""
    with contextlib.suppress(metadata.PackageNotFoundError):
        return metadata.version(name)
    return None


def importlib_versions(names: list[str]) -> dict[str, str | None]:
    return {name: importlib_version(name) for name in names}


def test_versions_equal_importlib_metadata() -> None:
    """Every recorded package's version is what importlib.metadata says (None if absent)."""
    names = ["pycosat", "ortools", "no-such-distribution", "click"]
    assert importlib_versions(sorted(names)) == provenance.package_versions(names)


def test_a_run_records_its_backends_packages(tmp_path: Path) -> None:
    """A run's metadata names the solver library of each of its backends, and no other."""
    out = tmp_path / "r.csv"
    puzzle = tmp_path / "one.txt"
    puzzle.write_text("." * 81 + "\n")
    command = ["run", "-q", "-b", "bitmask", "-b", "pycosat", "--out", str(out), str(puzzle)]
    done = CliRunner().invoke(main, command)
    meta = json.loads(out.with_name("r.csv.meta.json").read_text())
    assert (0, importlib_versions(["pycosat"])) == (done.exit_code, meta["packages"])


def test_run_records_project_version() -> None:
    """The metadata's project_version is the installed sudoku-harness version."""
    assert (
        importlib_versions(["sudoku-harness"])["sudoku-harness"]
        == (provenance.environment()["project_version"])
    )


def git(folder: Path, *args: str) -> str:
    command = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t", *args]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()


def test_the_environment_has_git_sha_and_dirty_from_one_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No commit yet, clean, then a changed tracked file: what rev-parse and status say."""
    monkeypatch.setattr(provenance, "PROJECT_ROOT", tmp_path)
    git(tmp_path, "init", "-q")
    seen = [provenance.environment()["git"]]
    (tmp_path / "f.txt").write_text("one\n")
    git(tmp_path, "add", "f.txt")
    git(tmp_path, "commit", "-q", "-m", "one")
    (tmp_path / "untracked.txt").write_text("not tracked: not dirty\n")
    seen.append(provenance.environment()["git"])
    (tmp_path / "f.txt").write_text("two\n")
    seen.append(provenance.environment()["git"])
    sha = git(tmp_path, "rev-parse", "HEAD")
    expected = [
        {"sha": None, "dirty": None},
        {"sha": sha, "dirty": False},
        {"sha": sha, "dirty": True},
    ]
    assert expected == seen


def test_the_environment_outside_git_has_no_git_sha(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside a git checkout both fields are None."""
    monkeypatch.setattr(provenance, "PROJECT_ROOT", tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    assert {"sha": None, "dirty": None} == provenance.environment()["git"]
