"""Checking answers: nothing here runs a backend or trusts what one says.

- :mod:`.checker`: the independent grid checker (rows, columns, boxes, givens);
- :mod:`.judge`: one outcome becomes a row's status and message;
- :mod:`.dispute`: the harness's own search settles a disputed solution count.

Called by the runner for every row and by the cross-check at the end of a run.
"""
