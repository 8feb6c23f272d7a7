"""How crowded the machine is for a thread: the share of its wanted time it waited for a core."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from workbench.cpu_wait import SCHEDSTAT, SHORTEST_NS, WaitShare
from workbench.tui.components.reply import CROWDED_SHARE


def write(path: Path, ran_ms: int, waited_ms: int) -> None:
    """The kernel's three numbers: ran and waited (ns), then the time slices."""
    path.write_text(f"{ran_ms * 1_000_000} {waited_ms * 1_000_000} 7\n")


def test_the_share_is_the_wait_over_the_wanted_time_since_the_reading_before(
    tmp_path: Path,
) -> None:
    stats = tmp_path / "schedstat"
    write(stats, 1000, 0)
    share = WaitShare(stats)
    assert share.read() == 0.0  # the first reading only starts a span
    write(stats, 1060, 40)
    assert share.read() == pytest.approx(0.4)
    write(stats, 1065, 45)  # 10 ms more wanted: too short to say, the share stays
    assert 10_000_000 < SHORTEST_NS <= 55_000_000
    assert share.read() == pytest.approx(0.4)
    write(stats, 1110, 45)  # together with the last 10 ms: 5 of 55 waited
    assert share.read() == pytest.approx(5 / 55)


def test_where_the_statistics_cannot_be_read_nothing_is_known(tmp_path: Path) -> None:
    share = WaitShare(tmp_path / "missing")
    assert share.read() == 0.0
    garbled = tmp_path / "garbled"
    garbled.write_text("not numbers\n")
    assert WaitShare(garbled).read() == 0.0


@pytest.mark.skipif(not SCHEDSTAT.exists(), reason="Linux's per-thread scheduler statistics")
def test_a_thread_sharing_its_core_with_a_busy_process_counts_as_crowded() -> None:
    """A real busy loop on this thread's one core: of the time the thread wants, it waits
    about half."""
    before = os.sched_getaffinity(0)
    core = min(before)
    busy = subprocess.Popen(
        [sys.executable, "-c", f"import os; os.sched_setaffinity(0, {{{core}}})\nwhile True: pass"]
    )
    try:
        os.sched_setaffinity(0, {core})  # this thread only
        time.sleep(0.3)  # the loop runs
        share = WaitShare()
        share.read()
        end = time.monotonic() + 0.4
        while time.monotonic() < end:  # wanting the core all along
            pass
        assert share.read() > CROWDED_SHARE
    finally:
        os.sched_setaffinity(0, before)
        busy.kill()
        busy.wait()
