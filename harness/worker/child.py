"""The worker process: its set-up (own session, dies with the parent) and its task loop."""

from __future__ import annotations

import contextlib
import faulthandler
import os
import signal
from multiprocessing.connection import Connection

from harness.worker.measure import WorkerState, measure, perf_counter, warm_up
from harness.worker.wire import Ready, Warming

_PR_SET_PDEATHSIG = 1  # prctl option, <linux/prctl.h>


def _die_with_parent(parent: int) -> None:
    """Have Linux SIGKILL this worker when the parent dies, even by SIGKILL (which leaves
    it no chance to stop its workers): an orphan would go on solving, or hang, unseen."""
    with contextlib.suppress(OSError, AttributeError):  # not Linux: the pipes' EOF must do
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def worker_main(
    tasks: Connection, results: Connection, parent: int, inherited: tuple[int, ...]
) -> None:
    """A worker's whole life: set itself up, then answer batches of tasks until None."""
    os.setsid()  # own process group, so the parent can kill everything it starts
    _die_with_parent(parent)
    for fd in inherited:  # the parent's pipe ends: with them open, no worker would see EOF
        with contextlib.suppress(OSError):
            os.close(fd)
    faulthandler.disable()  # a crash is reported by the parent, not as a traceback dump
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    for signum in (signal.SIGTERM, signal.SIGHUP):  # not the parent's handlers: just die
        signal.signal(signum, signal.SIG_DFL)
    state = WorkerState()
    send = results.send
    try:
        while True:
            batch = tasks.recv()
            if batch is None:
                return
            for wire in batch:  # one answer per task, sent before the next task starts
                if (wire[0], wire[1]) not in state.warmed:  # the parent times it apart
                    send(Warming())
                    warm_up(wire, state)
                    send(Ready(perf_counter()))  # the task's clock starts now
                send(measure(wire, state).wire())
    except (EOFError, OSError):  # the parent has gone: nobody wants the answers
        return
