"""What a session and its branches cost, through Workbench: the state's totals (tokens with the
cache's, cost, hit rates), a branch's cost since its fork, a merged experiment counted once, and
the commit trailers that carry a branch's figures into git."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.git_project import git
from support.opened_workbench import script, write
from support.workbench_process import write_user_settings

PRICE = {"input": 1, "output": 2, "cache_read": 0.1, "cache_write": 1.25}
"""USD per million tokens."""


def priced(model: str) -> str:
    write_user_settings({"models": {model: {"cost": PRICE}}})
    return model


def turn(text: str, **usage: int) -> dict[str, Any]:
    return {"text": text, "usage": {"output_tokens": 10, **usage}}


MAIN_TURN = turn("on main", input_tokens=100, cache_read_tokens=900)
"""100 x $1 + 10 x $2 + 900 x $0.10 = $210 per million."""
FORK_TURN = turn("on the fork", input_tokens=50, cache_write_tokens=400)
"""50 x $1 + 10 x $2 + 400 x $1.25 = $570 per million."""


async def test_state_status_and_merge_count_every_call_once(
    project: Path, tmp_path: Path, opened
) -> None:
    model = priced(script(tmp_path, [MAIN_TURN, FORK_TURN], ["## Goal\nfigures"]))
    session = await opened(project, model)
    await session.run("start")
    state = session.wb.state()
    assert state.total_cost == pytest.approx(210e-6)
    assert (state.input_tokens, state.cache_read_tokens, state.output_tokens) == (100, 900, 10)
    assert state.last_turn_hit_rate == pytest.approx(0.9)

    await session.wb.fork("exp")
    await session.run("try")
    state = session.wb.state()
    assert state.total_cost == pytest.approx(780e-6), "the conversation from its start"
    assert state.cache_write_tokens == 400
    assert state.last_turn_hit_rate == 0.0
    assert state.session_hit_rate == pytest.approx(900 / 1450)
    status = await session.wb.status()
    assert status.cost == pytest.approx(570e-6), "the branch since its fork"
    assert state.to_dict()["cache_write_tokens"] == 400, "get_state carries it"

    merged = await session.wb.merge("exp")
    assert merged.usage.cost == pytest.approx(570e-6)
    state = session.wb.state()
    assert state.branch == "main"
    assert state.total_cost == pytest.approx(780e-6), "main's own call and the experiment's"
    assert (await session.wb.tree()).usage["cost"] == pytest.approx(780e-6)


async def test_commit_trailers_carry_the_branchs_cost_and_tokens(
    project: Path, tmp_path: Path, opened
) -> None:
    turns = [MAIN_TURN, write("NOTE.md", "a note\n"), FORK_TURN]
    session = await opened(project, priced(script(tmp_path, turns)))
    await session.run("start")
    await session.wb.fork("exp")
    await session.run("write a note")
    trailers = session.wb.commit_trailers()
    assert trailers == [  # the fork's two calls: the write (no usage reported) and FORK_TURN
        "Workbench-Cost: $0.0006",
        "Workbench-Tokens: 50 in, 10 out, 0 cache read, 400 cache write",
    ]
    done = await session.wb.commit("Add a note")
    worktree = Path(session.wb.state().cwd)
    body = git(worktree, "log", "-1", "--format=%B")
    assert body == "Add a note\n\n" + "\n".join(trailers)
    assert git(worktree, "log", "-1", "--format=%(trailers:key=Workbench-Cost,valueonly)") == (
        "$0.0006"
    )
    assert done.message.endswith(trailers[-1] + "\n")

    (worktree / "MORE.md").write_text("more\n")
    own = "Add more\n\nWorkbench-Cost: $1.00\n"
    assert (await session.wb.commit(own)).message == own, "a message with its own is kept"
