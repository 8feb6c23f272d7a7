"""Full garbage collections wait while the agent runs and come back when it ends."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from workbench.tui.collector import Collector


@pytest.fixture
def full_collections() -> Iterator[list[int]]:
    """Counts the full collections that run, however they are started."""
    seen: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2:
            seen.append(1)

    gc.callbacks.append(note)
    yield seen
    gc.callbacks.remove(note)


def allocate_long_lived(count: int) -> list[list[None]]:
    """Objects that survive the young collections, as a turn's messages and widgets do: enough
    of them makes CPython start a full collection on its own."""
    return [[None] for _ in range(count)]


def test_no_full_collection_runs_while_held_and_one_does_after(full_collections: list[int]) -> None:
    collector = Collector()
    collector.hold()
    try:
        kept = allocate_long_lived(1_000_000)
        assert full_collections == []
    finally:
        collector.release()
    for _ in range(20):  # what CPython waits for before a full collection depends on the process
        kept += allocate_long_lived(100_000)
        if full_collections:
            break
    assert full_collections, "released, the collector runs full collections again"


def test_release_without_hold_and_a_second_hold_change_nothing() -> None:
    before = gc.get_threshold()
    collector = Collector()
    collector.release()
    assert gc.get_threshold() == before
    collector.hold()
    collector.hold()
    collector.release()
    assert gc.get_threshold() == before
