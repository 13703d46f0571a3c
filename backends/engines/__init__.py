"""Solving engines that are not backends: the modules the backends of :mod:`backends` build on.

* :mod:`backends.engines.search` -- one backtracking search over bitmask candidate sets, its
  heuristics passed as parameters (``mrv``, ``naive``, ``norvig`` and ``ac3`` run on it).
* :mod:`backends.engines.strategies` -- human solving strategies and their ladder (``logic``).
* :mod:`backends.engines.cnf` -- CNF encodings of Sudoku, decoding, and counting models by
  blocking clauses (``pycosat``, ``pysat``, ``cryptosat``).
* :mod:`backends.engines.sat` -- the shape every SAT backend shares: the CNF options, encode,
  and a model count the subclass runs in its solver.
* :mod:`backends.engines.deadline` -- the clock check the node-counting searches share.

None of them is registered; a backend module wraps each behind the contract of
:mod:`backends.base`.
"""
