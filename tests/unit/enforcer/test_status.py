"""The /skill-graph-status text."""

from __future__ import annotations

import os
import time

import pytest

from workbench.enforcer.state import LoadingState, LoadRecord
from workbench.enforcer.status import format_status


@pytest.fixture(autouse=True)
def utc():
    saved = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if saved is None:
        os.environ.pop("TZ")
    else:
        os.environ["TZ"] = saved
    time.tzset()


def test_empty_state():
    assert format_status(LoadingState()) == (
        "Skill graph status (enforcer mode: warn)\nActive compound: none\nLoaded skills (0):\n"
        "  none yet\nLast loads: none\nViolations: none"
    )


def test_layers_last_five_loads_and_every_violation():
    state = LoadingState()
    records = [
        LoadRecord(
            "outline",
            "atom",
            "violation",
            "read",
            time=3600,
            reason="Skipped.",
            suggestion="Load write-draft.",
            blocked=True,
        ),
        LoadRecord("publish-report", "compound", "ok", "read", time=3601),
        LoadRecord("gather-sources", "molecule", "ok", "bash", time=3602, via="publish-report"),
        LoadRecord("fetch-url", "atom", "ok", "read", time=3603, via="gather-sources"),
        LoadRecord("pdf-tools", None, "ok", "activate", time=3604),
        LoadRecord(
            "fetch-url",
            "atom",
            "repeat",
            "read",
            time=3605,
            reason="Again.",
            suggestion="Use it.",
            via="gather-sources",
        ),
    ]
    for record in records:
        state.apply(record)
    text = format_status(state, "block")
    assert text == "\n".join(
        [
            "Skill graph status (enforcer mode: block)",
            "Active compound: publish-report",
            "Delegation chain: publish-report → gather-sources → fetch-url",
            "Loaded skills (4):",
            "  compound: publish-report",
            "  molecule: gather-sources",
            "  atom: fetch-url",
            "  unlayered: pdf-tools",
            "Activated: pdf-tools",
            "Last 5 loads:",
            "  01:00:01  publish-report  [compound, read]  ok",
            "  01:00:02  gather-sources  [molecule, bash]  ok (via publish-report)",
            "  01:00:03  fetch-url  [atom, read]  ok (via gather-sources)",
            "  01:00:04  pdf-tools  [unlayered, activate]  ok",
            "  01:00:05  fetch-url  [atom, read]  repeat (via gather-sources)",
            "Violations and notices (2):",
            "  01:00:00  outline  [atom, read]  violation, refused",
            "    Skipped.",
            "    next: Load write-draft.",
            "  01:00:05  fetch-url  [atom, read]  repeat (via gather-sources)",
            "    Again.",
            "    next: Use it.",
        ]
    )
