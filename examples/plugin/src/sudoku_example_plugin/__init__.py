"""An example sudoku-harness plugin: one backend, declared as an entry point."""
