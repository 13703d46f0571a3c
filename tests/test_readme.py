"""The README tells the truth: the commands it shows exist with the options it gives them, the
files they name exist, its test command is the one CI runs, its exit codes are the CLI's."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from harness import exit_codes
from harness.cli import main
from tests.conftest import PROJECT

README = (PROJECT / "README.md").read_text()


def shell_commands() -> list[list[str]]:
    """Every command of the README's ``sh`` blocks, split as a shell would (comments dropped,
    continued lines joined, ``&&`` chains cut into their commands)."""
    text = "\n".join(re.findall(r"```sh\n(.*?)```", README, re.DOTALL)).replace("\\\n", " ")
    commands: list[list[str]] = []
    for line in text.splitlines():
        words = shlex.split(line, comments=True)
        while words:
            cut = words.index("&&") if "&&" in words else len(words)
            commands.append(words[:cut])
            words = words[cut + 1 :]
    return [words for words in commands if words]


def harness_calls() -> list[list[str]]:
    """The arguments of every ``harness`` (or ``.venv/bin/harness``) command the README shows."""
    return [words[1:] for words in shell_commands() if Path(words[0]).name == "harness"]


def options_of(name: str, args: list[str] | None = None) -> set[str]:
    """Every option string of the ``harness NAME`` command (of a group, the subcommand
    ``args`` names, else its default ``show``)."""
    command = main.get_command(click.Context(main), name)
    assert command is not None, f"harness {name}: no such command"
    if isinstance(command, click.Group):
        named = args[0] if args and args[0] in command.commands else "show"
        command = command.commands[named]
    return {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)} | {
        "-h",
        "--help",
    }


def test_readme_shows_every_command() -> None:
    """Each command `harness --help` lists is shown at least once in the README's examples."""
    shown = {args[0] for args in harness_calls()}
    assert set(main.list_commands(click.Context(main))) == shown


def test_readme_options_exist() -> None:
    """Every option the README passes to a harness command is one that command takes."""
    unknown = []
    for args in harness_calls():
        options = options_of(args[0], args[1:])
        for word in args[1:]:
            name = word.split("=", 1)[0]
            if name.startswith("-") and name != "-" and name not in options:
                unknown.append(f"harness {args[0]} {name}")
    assert [] == unknown


def test_readme_files_exist() -> None:
    """The shipped files the README's commands read (datasets, examples, baselines) exist."""
    named = {
        word.split(":")[0]
        for words in shell_commands()
        for word in words
        if word.startswith(("datasets/", "examples/", "results/baselines/"))
    }
    assert named, "the README names no shipped file"
    assert [] == sorted(path for path in named if not (PROJECT / path).exists())


def test_readme_test_command_is_the_ci_command() -> None:
    """The README's test command is, character for character, the one `.ci/run` runs."""
    ci_command = (PROJECT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert ci_command.startswith("python3 -m venv .venv")
    assert f"```sh\n{ci_command}\n```" in README


def test_readme_exit_codes_are_the_cli_table() -> None:
    """The README's exit-code block is exit_codes.TABLE, the table `harness run --help` shows."""
    section = README.split("## Exit codes", 1)[1]
    block = re.search(r"```\n(.*?)\n```", section, re.DOTALL)
    assert block is not None
    assert exit_codes.TABLE == block.group(1)


def test_what_the_compile_commands_make_is_ignored_by_git() -> None:
    """Every ``cc ... -o NAME`` of the README, docs/ and examples/ (run at the checkout's
    top) makes a file git ignores: a build leaves nothing untracked."""
    import subprocess

    texts = [README, *(p.read_text() for p in (PROJECT / "docs").glob("*.md"))]
    texts += [p.read_text() for p in (PROJECT / "examples").rglob("*.c")]
    made = sorted({m for t in texts for m in re.findall(r"\bcc [^\n`]*?-o (\S+)", t)})
    if not (PROJECT / ".git").exists():
        pytest.skip(f"{PROJECT} is not a git checkout")
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", *made],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    assert (["libsolver.so", "solver", "tiny"], made) == (made, ignored)
