"""Costs and caching, figure by figure: prices (cache writes at their own rate), the providers'
usage in one vocabulary, totals over messages (sub-agents and merged experiments included), the
cache breakpoints a request gets, and the settings that turn caching off or make it last."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from workbench.agent.costs import UsageTotals, message_totals
from workbench.agent.models.caching import CachePolicy, cache_style, key_arguments, with_breakpoints
from workbench.agent.models.choice import cache_policy
from workbench.agent.models.client import ModelInfo
from workbench.agent.models.stream_end import our_usage
from workbench.config import Settings
from workbench.errors import WorkbenchError
from workbench.messages import Message, Usage
from workbench.sessions.workspaces.commit_trailers import trailer_lines, with_trailers

PER_MILLION = 1e-6
SONNET = ModelInfo(
    "anthropic/claude-sonnet-4-5",
    input_cost=3 * PER_MILLION,
    output_cost=15 * PER_MILLION,
    cache_read_cost=0.3 * PER_MILLION,
    cache_write_cost=3.75 * PER_MILLION,
)


def test_cost_prices_each_kind_of_token_at_its_own_rate() -> None:
    usage = Usage(input_tokens=1_000, output_tokens=500, cache_read_tokens=20_000)
    usage.cache_write_tokens = 4_000
    # per million: 1,000 x $3 + 500 x $15 + 20,000 x $0.30 + 4,000 x $3.75
    # = $0.003 + $0.0075 + $0.006 + $0.015
    assert SONNET.cost(usage) == pytest.approx(0.0315)
    assert usage.prompt_tokens == 25_000
    assert usage.hit_rate == pytest.approx(0.8)


def test_a_model_without_cache_prices_charges_cached_tokens_as_input() -> None:
    plain = ModelInfo("x", input_cost=2 * PER_MILLION, output_cost=8 * PER_MILLION)
    usage = Usage(input_tokens=100, output_tokens=10, cache_read_tokens=900, cache_write_tokens=0)
    assert plain.cost(usage) == pytest.approx((1000 * 2 + 10 * 8) * PER_MILLION)


def test_no_price_is_unknown_never_zero_and_offline_is_free() -> None:
    usage = Usage(input_tokens=10, output_tokens=10)
    assert ModelInfo("unknown/model").cost(usage) is None
    assert ModelInfo("demo", offline=True).cost(usage) == 0.0


def test_providers_usage_is_normalised_to_uncached_input() -> None:
    # litellm's shape for Anthropic: prompt_tokens counts cache reads and writes too
    anthropic = SimpleNamespace(
        prompt_tokens=3010,
        completion_tokens=7,
        prompt_tokens_details=SimpleNamespace(cached_tokens=2000),
        cache_creation_input_tokens=1000,
    )
    assert our_usage(anthropic) == Usage(10, 7, 2000, 1000)
    # OpenAI: prompt_tokens counts the cached ones, there are no cache writes
    openai = SimpleNamespace(
        prompt_tokens=1200,
        completion_tokens=10,
        prompt_tokens_details=SimpleNamespace(cached_tokens=1024),
    )
    assert our_usage(openai) == Usage(176, 10, 1024, 0)
    assert our_usage(SimpleNamespace(prompt_tokens=0, completion_tokens=0)) is None


def reply(usage: Usage | None) -> Message:
    return Message(role="assistant", text="ok", usage=usage)


def test_totals_roll_up_sub_agents_and_merged_experiments_once() -> None:
    child = {
        "turns": 2,
        "usage": {"input": 100, "output": 20, "cache_read": 300, "cache_write": 0},
        "cost": 0.25,
    }
    subagent = Message(role="tool_result", text="done", details={"subagent": {"results": [child]}})
    merged = UsageTotals(input_tokens=5, output_tokens=5, cost=1.0, calls=1).to_json()
    merge = Message(
        role="branch_summary", text="merged", details={"entry_type": "merge", "usage": merged}
    )
    own = reply(Usage(input_tokens=10, output_tokens=1, cache_read_tokens=90, cost=0.5))
    totals = message_totals([own, subagent, merge])
    assert totals.cost == pytest.approx(1.75)
    assert (totals.input_tokens, totals.cache_read_tokens, totals.calls) == (115, 390, 4)
    assert totals.hit_rate == pytest.approx(390 / 505)
    assert totals.tokens_text() == "115 in / 26 out / 390 cache read"
    assert totals.cost_text() == "$1.7500"


def test_one_unknown_price_makes_the_total_unknown() -> None:
    totals = message_totals([reply(Usage(10, 1, cost=0.5)), reply(Usage(10, 1, cost=None))])
    assert totals.cost is None and totals.cost_text() == "cost unknown"
    assert message_totals([reply(None)]).hit_rate is None


def openai_messages() -> list[dict]:
    return [
        {"role": "system", "content": "stable prompt"},
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "a"}, {"id": "b"}]},
        {"role": "tool", "tool_call_id": "a", "content": "A"},
        {"role": "tool", "tool_call_id": "b", "content": "B"},
        {"role": "assistant", "content": "and?"},
        {"role": "user", "content": "second"},
    ]


def test_breakpoints_end_the_system_prompt_and_the_last_two_user_side_messages() -> None:
    marked = with_breakpoints(openai_messages(), "Working folder: /w", CachePolicy())
    ephemeral = {"type": "ephemeral"}
    assert marked[0]["content"] == [
        {"type": "text", "text": "stable prompt", "cache_control": ephemeral},
        {"type": "text", "text": "Working folder: /w"},
    ]
    assert "cache_control" not in marked[3], "only a run's last tool result is marked"
    assert marked[4]["cache_control"] == ephemeral
    assert marked[6]["content"] == [{"type": "text", "text": "second", "cache_control": ephemeral}]
    assert marked[1]["content"] == "first", "at most four breakpoints: older ones go"
    assert openai_messages()[6]["content"] == "second", "the input is not changed"
    hour = with_breakpoints(openai_messages(), "", CachePolicy(retention="long"))
    assert hour[0]["content"] == [
        {"type": "text", "text": "stable prompt", "cache_control": {**ephemeral, "ttl": "1h"}}
    ]


def test_which_models_get_breakpoints_and_which_a_cache_key() -> None:
    assert cache_style("anthropic/claude-sonnet-4-5", "anthropic", ("cache_control",)) == (
        "anthropic"
    )
    assert cache_style("bedrock/anthropic.claude-3-5-sonnet", "bedrock", ()) == "anthropic"
    assert cache_style("vertex_ai/claude-3-5", "vertex_ai-anthropic_models", ()) == "anthropic"
    assert cache_style("openai/gpt-4.1", "openai", ("prompt_cache_key",), caches=True) == "key"
    local = cache_style("openai/my-local", "openai", ("prompt_cache_key",), caches=False)
    assert local is None, "a local OpenAI-compatible server may refuse the key"
    assert cache_style("deepseek/chat", "deepseek", ("prompt_cache_key",), caches=True) is None
    assert cache_style("gemini/gemini-2.5-pro", "gemini", ("tools",)) is None
    supported = ("prompt_cache_key", "prompt_cache_retention")
    assert key_arguments(CachePolicy(retention="long"), "s1", supported) == {
        "prompt_cache_key": "s1",
        "prompt_cache_retention": "24h",
    }
    assert key_arguments(CachePolicy(), "s1", ("tools",)) == {}


def settings(data: dict) -> Settings:
    return Settings(Path(), data=data)


def test_cache_settings_and_the_flag() -> None:
    assert cache_policy(settings({})) == CachePolicy(enabled=True, retention="short")
    assert cache_policy(settings({"cache": False})).enabled is False
    assert cache_policy(settings({}), no_cache=True).enabled is False
    assert cache_policy(settings({"cache_retention": "long"})).retention == "long"
    with pytest.raises(WorkbenchError, match="cache_retention must be one of short, long"):
        cache_policy(settings({"cache_retention": "forever"}))
    with pytest.raises(WorkbenchError, match="cache must be true or false"):
        cache_policy(settings({"cache": "no"}))


def test_commit_trailers_join_a_trailer_block_or_start_one_and_never_twice() -> None:
    trailers = trailer_lines(UsageTotals(1200, 80, 9000, 500, cost=0.01234))
    assert trailers == [
        "Workbench-Cost: $0.0123",
        "Workbench-Tokens: 1200 in, 80 out, 9000 cache read, 500 cache write",
    ]
    assert trailer_lines(UsageTotals(cost=None))[0] == "Workbench-Cost: unknown"
    plain = with_trailers("Fix the parser\n\nPurpose: it broke.\n", trailers)
    assert plain == "Fix the parser\n\nPurpose: it broke.\n\n" + "\n".join(trailers) + "\n"
    signed = with_trailers("Fix it\n\nSigned-off-by: A <a@b>\n", trailers)
    assert signed == "Fix it\n\nSigned-off-by: A <a@b>\n" + "\n".join(trailers) + "\n"
    subject_only = with_trailers("Note: a subject with a colon", trailers)
    assert subject_only.startswith("Note: a subject with a colon\n\nWorkbench-Cost:")
    edited = "Fix it\n\nworkbench-cost: $9\n"
    assert with_trailers(edited, trailers) == edited


def test_a_compactions_summary_call_counts_with_the_branch() -> None:
    summary_call = {"input_tokens": 5000, "output_tokens": 400, "cost": 0.021}
    compacted = Message(role="compaction", text="## Goal", details={"usage": summary_call})
    totals = message_totals([compacted, reply(Usage(10, 1, cost=0.001))])
    assert totals.cost == pytest.approx(0.022)
    assert (totals.input_tokens, totals.calls) == (5010, 2)


def test_empty_text_is_never_marked() -> None:
    messages = [{"role": "system", "content": ""}, {"role": "user", "content": ""}]
    marked = with_breakpoints(messages, "Working folder: /w", CachePolicy())
    assert marked[0]["content"] == [{"type": "text", "text": "Working folder: /w"}]
    assert marked[1]["content"] == ""
