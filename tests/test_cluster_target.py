"""Where a cluster run solves, and Dask's import without what a run never needs (no Dask
needed here: the imports are of modules the tests write)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.run.cluster.target import (
    ClusterError,
    ClusterTarget,
    import_without,
    requested_in,
    yaml_parsed_in_c,
)


@pytest.fixture
def module_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder on sys.path for modules written by the test; they are forgotten after it."""
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    names = {path.stem for path in tmp_path.iterdir()}
    for name in [m for m in sys.modules if m.partition(".")[0] in names]:
        del sys.modules[name]


def write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)


OPTIONAL_USER = "try:\n    import extra\nexcept ImportError:\n    extra = None\n"


def test_an_optional_module_is_hidden_during_the_import_only(module_dir: Path) -> None:
    """A module imported without an optional one runs without it; it is importable after."""
    write(module_dir, {"extra.py": "VALUE = 7\n", "user.py": OPTIONAL_USER})
    imported = import_without("user", ["extra"])
    assert (None, 7) == (imported.extra, importlib.import_module("extra").VALUE)


def test_a_module_imported_already_is_not_hidden(module_dir: Path) -> None:
    """An optional module loaded before the import stays in sight of it."""
    write(module_dir, {"extra.py": "VALUE = 7\n", "user.py": OPTIONAL_USER})
    extra = importlib.import_module("extra")
    assert extra is import_without("user", ["extra"]).extra


def test_what_needs_a_hidden_module_is_imported_again_whole(module_dir: Path) -> None:
    """A package one of whose modules needs the hidden one is imported again, all of it."""
    write(
        module_dir,
        {
            "extra.py": "VALUE = 7\n",
            "pkg/__init__.py": "from pkg import user, needer\n",
            "pkg/user.py": OPTIONAL_USER,
            "pkg/needer.py": "import extra\nVALUE = extra.VALUE\n",
        },
    )
    imported = import_without("pkg", ["extra"])
    assert (7, 7) == (imported.needer.VALUE, imported.user.extra.VALUE)


def test_local_needs_at_least_one_worker() -> None:
    """local:0 is refused with the value given."""
    with pytest.raises(ClusterError, match="'local:0'"):
        assert ClusterTarget("local:0").local_workers is None  # never reached: it raises


def test_yaml_is_parsed_by_libyaml_in_the_block_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """yaml.safe_load uses the C loader inside yaml_parsed_in_c(), its own after it."""
    yaml = pytest.importorskip("yaml")
    if not hasattr(yaml, "CSafeLoader"):
        pytest.skip("PyYAML was built without libyaml")
    real_load, loaders = yaml.load, []
    monkeypatch.setattr(
        yaml, "load", lambda s, Loader: loaders.append(Loader) or real_load(s, Loader)
    )
    with yaml_parsed_in_c():
        inside = yaml.safe_load("a: [1, b]")
    after = yaml.safe_load("a: [1, b]")
    assert ({"a": [1, "b"]}, [yaml.CSafeLoader, yaml.SafeLoader]) == (after, loaders)
    assert inside == after


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["run", "--cluster", "local:2", "f.txt"], ClusterTarget("local:2")),
        (["run", "-q", "--cluster=tcp://h:8786", "f.txt"], ClusterTarget("tcp://h:8786")),
        (["run", "--scheduler-file", "s.json"], ClusterTarget(None, Path("s.json"))),
        (["run", "--cluster", "local:2", "--cluster", "local:2"], ClusterTarget("local:2")),
        (["run", "--cluster", "local:2", "--cluster", "local:3"], None),
        (["run", "--cluster", "local:2", "--scheduler-file", "s.json"], None),
        (["run", "--cluster"], None),
        (["run", "--cluster", "local:0"], None),
        (["run", "--", "--cluster", "local:2"], None),
        (["report", "--cluster", "local:2"], None),
        (["run", "f.txt"], None),
    ],
)
def test_the_cluster_asked_for_is_read_before_parsing(
    argv: list[str], expected: ClusterTarget | None
) -> None:
    """requested_in reads the one cluster a run asks for, and nothing that is unclear."""
    assert expected == requested_in(argv)
