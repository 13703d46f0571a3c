"""Plugins: backends other distributions declare as entry points, and the template to copy.

The example plugin (examples/plugin) is really built and installed, with pip, into a folder
put on ``sys.path``; the broken plugins are a hand-written ``.dist-info`` whose entry points
name the classes of tests/plugin_cases.py. Worker processes are forked, so they see both.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import backends
import tests.test_contract as contract
from backends import make_backend, plugins
from backends._template import TemplateBackend
from backends.errors import BackendUnavailableError, UnknownBackendError
from backends.mrv import MrvBackend
from harness.cli import main
from harness.exit_codes import RunExit
from tests.results_file import read_rows

PROJECT = Path(__file__).resolve().parents[1]
EXAMPLE = PROJECT / "examples" / "plugin"
EASY = str(PROJECT / "datasets" / "easy.txt")

#: The broken distribution: one entry point per way a plugin can fail, and one that works.
BROKEN_ENTRY_POINTS = """\
[sudoku_harness.backends]
missing = tests.plugin_cases_absent:Backend
raises = tests.plugin_broken_module:Backend
notabackend = tests.plugin_cases:NotABackend
abstract = tests.plugin_cases:AbstractBackend
misnamed = tests.plugin_cases:MisnamedBackend
mrv = tests.plugin_cases:ClashBackend
shadowing = tests.plugin_cases:ShadowingBackend
oldstyle = tests.plugin_cases:OldStyleBackend
template = backends._template:TemplateBackend
"""


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def run(*args: str):
    """`harness run` with these arguments."""
    return invoke("run", *args)


def _on_path(folder: Path) -> Iterator[Path]:
    sys.path.insert(0, str(folder))
    plugins.reset()
    try:
        yield folder
    finally:
        sys.path.remove(str(folder))
        plugins.reset()


@pytest.fixture(scope="module")
def example_plugin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """examples/plugin built and installed by pip into a fresh folder on sys.path."""
    work = tmp_path_factory.mktemp("example-plugin")
    source = shutil.copytree(EXAMPLE, work / "source")  # the build writes beside the source
    target = work / "site"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(target),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert 0 == done.returncode, done.stderr
    yield from _on_path(target)


@pytest.fixture
def broken_plugins(tmp_path: Path) -> Iterator[Path]:
    """A distribution ``broken-plugins 1.0`` declaring the broken entry points above."""
    info = tmp_path / "broken_plugins-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugins\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(BROKEN_ENTRY_POINTS)
    yield from _on_path(tmp_path)


def listed(output: str) -> dict[str, str]:
    """``harness backends`` output after the plugins heading: name -> its entry's text."""
    entries: dict[str, str] = {}
    name = ""
    for line in output.split("plugins (", 1)[1].splitlines()[1:]:
        if not line:  # the plugins end at the blank line before the shorthand legend
            break
        if not line.startswith(" "):
            name = line.split()[0]
            entries[name] = ""
        entries[name] += line + "\n"
    return entries


def test_example_plugin_is_listed_with_its_distribution(example_plugin: Path) -> None:
    """`harness backends` lists the installed example with its distribution and version."""
    result = invoke("backends")
    entry = listed(result.output)["example"]
    assert 0 == result.exit_code
    assert "[available; deterministic; up to 9x9]" in entry
    assert "from sudoku-harness-example-plugin 0.1.0" in entry


def test_example_plugin_runs_through_harness_run(example_plugin: Path, tmp_path: Path) -> None:
    """`harness run -b example` solves and checks every puzzle, in worker processes."""
    out = tmp_path / "r.csv"
    needs_guess = str(PROJECT / "datasets" / "needs-guess.txt")
    options = ("-q", "-j", "2", "-b", "example", "-b", "mrv", "--limit-solutions", "2")
    result = run(*options, "--out", str(out), needs_guess)
    rows = read_rows(out)[1]
    example = [r for r in rows if r["backend"] == "example"]
    assert (0, 20, {"SOLVED"}) == (result.exit_code, len(example), {r["status"] for r in example})
    assert all(r["dead_ends"] != "" for r in example)


def test_run_metadata_records_the_plugin(example_plugin: Path, tmp_path: Path) -> None:
    """The run's .meta.json names the plugin's distribution, version and entry point."""
    out = tmp_path / "r.csv"
    run("-q", "-b", "example", "-b", "mrv", "--out", str(out), EASY)
    meta = json.loads(out.with_name("r.csv.meta.json").read_text())
    assert {
        "example": {
            "distribution": "sudoku-harness-example-plugin",
            "version": "0.1.0",
            "entry_point": "sudoku_example_plugin.backend:ExampleBackend",
        },
        "mrv": None,
    } == {b["spec"]: b["plugin"] for b in meta["backends"]}


def test_example_plugin_passes_the_contract(
    example_plugin: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The example plugin passes the contract suite's checks: sizes, UNSAT, limit 2, time."""
    monkeypatch.setitem(backends.REGISTRY, "example", type(make_backend("example")))
    run_contract("example", tmp_path)


def test_template_passes_the_contract(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The file to copy is a working backend: it passes the contract suite's checks."""
    monkeypatch.setitem(backends.REGISTRY, "template", TemplateBackend)
    run_contract("template", tmp_path)


def run_contract(name: str, tmp_path: Path) -> None:
    contract.test_declares_itself(name)
    contract.test_solves_every_size(name, contract.Reference())
    contract.test_unsat(name)
    contract.test_counts_two_solutions(name)
    contract.test_limit_one_stops_at_one(name)
    contract.test_keeps_time_limit(name, tmp_path)


def test_broken_plugins_are_listed_unavailable_with_reasons(broken_plugins: Path) -> None:
    """Each broken plugin is UNAVAILABLE with its reason; the CLI still lists everything."""
    with pytest.warns(DeprecationWarning, match="OldStyleBackend overrides available"):
        result = invoke("backends")
    entries = listed(result.output)
    reasons = {
        "missing": "cannot import it: ModuleNotFoundError: No module named "
        "'tests.plugin_cases_absent'",
        "raises": "cannot import it: RuntimeError: this plugin fails when imported",
        "notabackend": "NotABackend'> is not a subclass of backends.base.Backend",
        "abstract": "AbstractBackend does not implement solve",
        "misnamed": "MisnamedBackend.name is 'other'; it must be the entry point's, 'misnamed'",
        "mrv": "the name 'mrv' is a built-in backend's; built-ins win",
        "shadowing": "ShadowingBackend's native statistic 'host' is a row column's name",
    }
    assert 0 == result.exit_code
    for name, why in reasons.items():
        entry = " ".join(entries[name].split())
        assert "[UNAVAILABLE]" in entry
        assert why in entry
    assert "from broken-plugins 1.0" in entries["missing"]
    assert "[available;" in entries["template"]
    assert "[UNAVAILABLE: install oldlib;" in entries["oldstyle"]  # available()'s answer


def test_broken_plugin_run_is_one_line_error(broken_plugins: Path, tmp_path: Path) -> None:
    """`harness run -b missing` exits 2 with one line giving the reason, no traceback."""
    result = run("-b", "missing", "--out", str(tmp_path / "r.csv"), EASY)
    assert RunExit.USAGE == result.exit_code
    assert 1 == len(result.output.strip().splitlines())
    assert "is unavailable: cannot import it" in result.output


def test_other_backends_run_beside_broken_plugins(broken_plugins: Path, tmp_path: Path) -> None:
    """With broken plugins installed, a working plugin and the built-in `mrv` still run."""
    out = tmp_path / "r.csv"
    result = run("-q", "-b", "template", "-b", "mrv", "--out", str(out), EASY)
    statuses = {(r["backend"], r["status"]) for r in read_rows(out)[1]}
    assert (0, {("template", "SOLVED"), ("mrv", "SOLVED")}) == (result.exit_code, statuses)


def test_builtin_name_wins_over_a_plugin(broken_plugins: Path) -> None:
    """A plugin declaring `mrv` does not replace the built-in."""
    assert MrvBackend is backends.backend_class("mrv")


def test_unavailable_plugin_raises_with_reason(broken_plugins: Path) -> None:
    """Asking for a broken plugin raises BackendUnavailableError naming its distribution."""
    with pytest.raises(BackendUnavailableError, match=r"broken-plugins 1\.0.*cannot import"):
        make_backend("missing")


def test_unknown_name_lists_plugins_too(broken_plugins: Path) -> None:
    """An unknown name's error lists built-ins and declared plugins."""
    with pytest.raises(UnknownBackendError, match=r"valid backends: .*template"):
        make_backend("nosuch")


def test_builtin_runs_never_read_entry_points(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Discovery is lazy: resolving and running built-in backends never scans entry points."""

    def scan() -> tuple:
        raise AssertionError("entry points were scanned")

    monkeypatch.setattr(plugins, "_declared", scan)
    out = tmp_path / "r.csv"
    result = run("-q", "-b", "mrv", "-b", "dlx", "--out", str(out), EASY)
    assert (0, 100) == (result.exit_code, len(read_rows(out)[1]))


def test_a_name_declared_twice_keeps_the_first(broken_plugins: Path) -> None:
    """`template` declared twice: the first found is used; the other is unavailable, naming it."""
    info = broken_plugins / "other_plugins-2.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: other-plugins\nVersion: 2.0\n")
    (info / "entry_points.txt").write_text(
        "[sudoku_harness.backends]\ntemplate = backends._template:TemplateBackend\n"
    )
    plugins.reset()
    used, shadowed = sorted(
        (p for p in plugins.listing(backends.REGISTRY) if p.name == "template"),
        key=lambda p: p.cls is None,
    )
    assert (TemplateBackend, None, f"the name 'template' is already declared by {used.origin}") == (
        used.cls,
        shadowed.cls,
        shadowed.reason,
    )


def test_old_contract_available_still_works_with_a_warning(broken_plugins: Path) -> None:
    """A plugin that overrides available() is asked through it, with a DeprecationWarning."""
    cls = backends.backend_class("oldstyle")
    with pytest.warns(DeprecationWarning, match="new name is unavailable_reason"):
        reason = backends.availability(cls)
    assert "install oldlib" == reason


def test_old_name_on_a_new_backend_warns_and_answers() -> None:
    """Backend.available() still answers, as unavailable_reason() does, with a warning."""
    with pytest.warns(DeprecationWarning, match="call unavailable_reason"):
        reason = MrvBackend.available()
    assert MrvBackend.unavailable_reason() == reason
