"""One backtracking search over bitmask candidate sets, its heuristics passed as parameters.

In the spirit of aima-python's ``backtracking_search(csp, select_unassigned_variable,
order_domain_values, inference)``: :func:`~.core.search` holds the only search logic, and a
backend is a choice of three small named functions (a select, an order, an inference) and a
driver. The package, by responsibility:

* :mod:`.state` -- the state (one packed int per cell), the per-size :class:`~.state.SearchTables`,
  the root state of a puzzle, and the type aliases of the functions below.
* :mod:`.heuristics` -- cell selections and value orders, and the tables naming every choice.
* :mod:`.propagation` -- the inferences: the validity check, forward checking, Norvig's
  singles, pairs and locked candidates.
* :mod:`.core` -- the search loop, its two drivers and its outcome.
* :mod:`.backend` -- :class:`~.backend.SearchBackend`, the base of the backends on this core.
"""
