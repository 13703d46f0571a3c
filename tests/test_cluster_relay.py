"""The relay in the process holding the Dask client: a worker that falls silent while it
holds chunks (a fake client: no Dask needed)."""

from __future__ import annotations

from multiprocessing import Pipe
from typing import Any

from harness.run.cluster.relay import SILENT_FLOOR_S, Heartbeats, Relay


class FakeFuture:
    def __init__(self, key: str, done: bool = False) -> None:
        self.key = key
        self.finished = done
        self.cancelled = False

    def done(self) -> bool:
        return self.finished

    def cancel(self) -> None:
        self.cancelled = True

    def add_done_callback(self, callback: Any) -> None:
        pass


class FakeClient:
    """Two workers, ``a`` and ``b``, each running what :attr:`held` says and keeping the
    outcomes :attr:`kept` says; a heartbeat of a worker is a new ``last_seen`` in :attr:`seen`."""

    def __init__(self) -> None:
        self.seen = {"a": 100.0, "b": 100.0}
        self.held: dict[str, list[str]] = {"a": [], "b": []}
        self.kept: dict[str, list[str]] = {}
        self.submitted: list[dict[str, Any]] = []

    def who_has(self, futures: list[FakeFuture]) -> dict[str, list[str]]:
        return {f.key: self.kept.get(f.key, []) for f in futures}

    def scheduler_info(self, n_workers: int = -1) -> dict[str, Any]:
        return {"workers": {w: {"last_seen": t} for w, t in self.seen.items()}}

    def processing(self, workers: list[str]) -> dict[str, list[str]]:
        return {w: self.held[w] for w in workers}

    def submit(self, *args: Any, **kwargs: Any) -> FakeFuture:
        self.submitted.append({k: v for k, v in kwargs.items() if k == "workers"})
        key = f"run_chunk-{len(self.submitted)}"
        self.held["b" if kwargs.get("workers") == ["b"] else "a"].append(key)
        return FakeFuture(key)


def test_silence_is_counted_from_the_last_change_seen() -> None:
    """A worker's silence runs from the first look at its latest heartbeat, on this clock."""
    beats = Heartbeats()
    first = beats.silence({"a": {"last_seen": 5.0}, "b": {"last_seen": 5.0}}, now=10.0)
    later = beats.silence({"a": {"last_seen": 5.0}, "b": {"last_seen": 9.0}}, now=13.0)
    assert ({"a": 0.0, "b": 0.0}, {"a": 3.0, "b": 0.0}) == (first, later)


def test_a_silent_worker_s_chunks_are_given_up_and_it_gets_no_more() -> None:
    """Chunks held past their limit by a silent worker come back silent; new ones go elsewhere."""
    client = FakeClient()
    ours, theirs = Pipe()
    relay = Relay(client, theirs)
    relay.submit(0, b"", None, 1.0, 1.5)  # key 0, on worker a
    relay.give_up_silent(now=0.0)
    client.seen["b"] = 101.0  # b sends heartbeats, a none
    relay.give_up_silent(now=SILENT_FLOOR_S - 0.5)  # a silent, not for long enough yet
    assert not ours.poll(0)
    client.seen["b"] = 102.0
    relay.give_up_silent(now=SILENT_FLOOR_S + 0.5)
    kind, key, message = ours.recv()
    relay.submit(1, b"", None, 1.0, 1.5)
    expected = ("silent", 0, "the Dask worker a holding this chunk was silent for 6 s")
    assert expected == (kind, key, message.removeprefix("no answer: "))
    assert ({"a"}, [1], [{}, {"workers": ["b"]}]) == (
        relay.silent_workers,
        list(relay.futures),
        client.submitted,
    )
    assert not ours.poll(0)  # b still answers: the run goes on


def test_every_worker_silent_stops_the_run() -> None:
    """When every worker holding chunks is silent past their limit, the relay says the run fails."""
    client = FakeClient()
    ours, theirs = Pipe()
    relay = Relay(client, theirs)
    relay.submit(0, b"", None, 1.0, 1.5)
    client.held["b"] = ["run_chunk-2"]
    relay.futures[1] = FakeFuture("run_chunk-2")
    relay.limits[1] = SILENT_FLOOR_S
    relay.give_up_silent(now=0.0)
    relay.give_up_silent(now=SILENT_FLOOR_S)
    answers = [ours.recv() for _ in range(3)]
    assert [("silent", 0), ("silent", 1), ("failed", None)] == [a[:2] for a in answers]
    assert "every Dask worker of the cluster stopped answering" == answers[2][2]


def test_a_finished_chunk_kept_on_a_silent_worker_is_given_up() -> None:
    """A chunk done on a worker that fell silent before its outcomes were fetched: silent too."""
    client = FakeClient()
    ours, theirs = Pipe()
    relay = Relay(client, theirs)
    relay.futures[0] = FakeFuture("run_chunk-1", done=True)
    relay.futures[1] = FakeFuture("run_chunk-2", done=True)
    relay.limits.update({0: SILENT_FLOOR_S, 1: SILENT_FLOOR_S})
    client.kept = {"run_chunk-1": ["a"], "run_chunk-2": ["b"]}
    relay.give_up_silent(now=0.0)
    client.seen["b"] = 101.0
    relay.give_up_silent(now=SILENT_FLOOR_S)
    assert (("silent", 0), [1]) == (ours.recv()[:2], list(relay.futures))
    assert not ours.poll(0)
