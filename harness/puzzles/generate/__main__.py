"""``python -m harness.puzzles.generate [DIRECTORY] [--tdoku]``: (re)write the small shipped
datasets.

The shipped ``unsolvable.txt``, ``multi.txt`` and ``sizes.txt`` name this command in their
headers; the command itself is :func:`harness.cli.generate.small_datasets_command`.
"""

from harness.cli.generate import small_datasets_command

if __name__ == "__main__":
    small_datasets_command(prog_name="python -m harness.puzzles.generate")
