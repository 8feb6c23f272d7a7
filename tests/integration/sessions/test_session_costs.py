"""What branches cost: a branch since its fork (its sub-agents included), what a merge records,
a parent that counts a merged experiment once (merged twice, too), and the tree's figures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.session_entries import cli, run, user

from workbench.agent.costs import PricedText
from workbench.messages import Message, Usage
from workbench.sessions.session import Session


def reply(cost: float | None, read: int = 0, write: int = 0, uncached: int = 100) -> dict:
    usage = Usage(uncached, 10, read, write, cost)
    return Message(role="assistant", text="done", usage=usage).to_dict()


def subagent_result(cost: float | None) -> dict[str, Any]:
    child = {"turns": 2, "usage": {"input": 40, "output": 4, "cache_read": 60}, "cost": cost}
    details = {"subagent": {"mode": "single", "results": [child]}}
    return Message(role="tool_result", text="child done", details=details).to_dict()


def test_a_branch_costs_its_own_calls_and_sub_agents_and_a_merge_counts_once(
    project: Path,
) -> None:
    with Session.create(project) as session:
        append = session.store.append
        run(append("user", user("start")))
        run(append("assistant", reply(0.01, read=900)))
        run(session.fork("exp"))
        run(append("user", user("try it")))
        run(append("assistant", reply(0.02, write=500)))
        run(append("tool_result", subagent_result(0.005)))
        status = run(session.status("exp"))
        assert status.cost == pytest.approx(0.025), "0.02 and the sub-agent's 0.005"
        assert status.tokens == {"input": 140, "output": 14, "cache_read": 60, "cache_write": 500}
        assert status.usage.hit_rate == pytest.approx(60 / 700)
        assert "  cost: $0.0250 · 140 in / 14 out / 60 cache read / 500 cache write" in (
            status.render_text()
        )
        assert status.to_json()["cost"] == pytest.approx(0.025)

        first = run(session.merge("exp"))
        assert first.entry.payload["usage"]["cost"] == pytest.approx(0.025)
        assert "the experiment cost $0.0250" in first.render_text()
        main = run(session.status("main"))
        assert main.cost == pytest.approx(0.01 + 0.025)

        run(session.switch_branch("exp"))
        run(append("user", user("one more thing")))
        run(append("assistant", reply(0.1)))
        second = run(session.merge("exp"))
        assert second.usage.cost == pytest.approx(0.1), "only what main did not have yet"
        assert run(session.status("main")).cost == pytest.approx(0.135)
        assert run(session.status("exp")).cost == pytest.approx(0.125)

        tree = run(session.tree())
        costs = {b.name: b.usage["cost"] for b in tree.branches}
        assert costs == pytest.approx({"main": 0.135, "exp": 0.125})
        assert tree.usage["cost"] == pytest.approx(0.135), "each call once in the session"
        text = tree.render_text()
        assert "[$0.1350 in all]" in text.splitlines()[0]
        assert "* exp from main  [$0.1250]" in text

    data = json.loads(cli(project, "tree", "--format", "json").stdout)
    assert data["usage"]["cost"] == pytest.approx(0.135)
    assert [b["usage"]["calls"] for b in data["branches"]] == [5, 4]  # main: 1 + 3 + 1 merged


def test_an_unknown_price_anywhere_makes_the_branch_cost_unknown(project: Path) -> None:
    with Session.create(project) as session:
        run(session.store.append("user", user("start")))
        run(session.fork("exp"))
        run(session.store.append("assistant", reply(0.02)))
        run(session.store.append("tool_result", subagent_result(None)))
        status = run(session.status())
    assert status.cost is None
    assert "  cost: unknown · " in status.render_text()
    done = cli(project, "status", "exp", "--format", "json")
    assert json.loads(done.stdout)["cost"] is None


def test_the_summaries_a_branch_asked_for_count_with_it(project: Path) -> None:
    def summary(cost: float) -> Any:
        async def summarize(messages: list[Message]) -> str:
            return PricedText("## Goal\nthe work", {"input_tokens": 1000, "cost": cost})

        return summarize

    with Session.create(project) as session:
        append = session.store.append
        first = run(append("user", user("start")))
        run(append("assistant", reply(0.01)))
        left = run(session.navigate(first.id, summary(0.002)))
        assert (
            left.summary is not None and left.summary.payload["details"]["usage"]["cost"] == 0.002
        )
        assert run(session.status(session.store.branch)).cost == pytest.approx(0.002)
        run(session.switch_branch("main"))
        run(session.fork("exp"))
        run(append("assistant", reply(0.02)))
        merged = run(session.merge("exp", summarize=summary(0.003)))
        assert merged.entry.payload["summary_usage"]["cost"] == 0.003
        assert run(session.status("main")).cost == pytest.approx(0.01 + 0.02 + 0.003)
        tree = run(session.tree())
    # every call once: main's reply, the path summary, the fork's reply, the merge summary
    assert tree.usage["cost"] == pytest.approx(0.01 + 0.002 + 0.02 + 0.003)
