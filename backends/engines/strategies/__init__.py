"""Human solving strategies on candidate bitmasks, each explaining itself, and their ladder.

A strategy is a small function ``find(board, name) -> Deduction | None``: the first
deduction it sees on a :class:`~.board.Board`, or None; ``name`` is the strategy's name as
the ladder knows it, for the text. It never changes the board; :meth:`~.board.Board.apply`
does. A :class:`~.board.Deduction` says what it places and what it eliminates, and why, in
one line of text such as ``r3c5 = 7 (hidden single in box 2)``; the ladder
(:mod:`.ladder`) adds the strategy's name and level, making a :class:`~.board.Step`.

Every strategy is sound on any board: it places or removes only what holds in *every*
solution that extends the board, so the ladder may run after a guess and with puzzles that
have several solutions. No uniqueness-based strategy (unique rectangles and the like) is
here, for that reason.

Modules, by family: :mod:`.board` (the board, its tables and the deduction records),
:mod:`.subsets` (singles, naked and hidden subsets), :mod:`.fish` (intersections: pointing
and claiming; x-wing, swordfish, jellyfish), :mod:`.wings` (xy-, xyz- and w-wings and the
single-digit chains of two strong links), :mod:`.chains` (alternating chains and forcing
chains) and :mod:`.ladder` (the rungs, their levels and weights).

Strategies generalise with the box side: units have ``n`` cells, subsets go up to four
cells, fish up to jellyfish (four lines), for 4x4 to 25x25 alike.
"""
