"""The agent loop's settings, read from the project's settings, and the bounds of its tools."""

from __future__ import annotations

import os
from pathlib import Path

from workbench.agent.compaction_plan import CompactionSettings
from workbench.agent.config import AgentConfig, RetryPolicy
from workbench.agent.models.rate_gate import RateGate
from workbench.agent.queues import queue_mode
from workbench.agent.state import AgentState
from workbench.config import Settings
from workbench.errors import WorkbenchError
from workbench.runtime.options import WorkbenchOptions
from workbench.sandbox import choose_sandbox


def agent_config(settings: Settings) -> AgentConfig:
    """The loop's settings: `queue.*`, `retry.*`, `compaction.*` (see docs/agent-and-models.md)."""
    try:
        return AgentConfig(
            steering_mode=queue_mode(
                settings.get("queue.steering_mode", "one-at-a-time"), "queue.steering_mode"
            ),
            follow_up_mode=queue_mode(
                settings.get("queue.follow_up_mode", "one-at-a-time"), "queue.follow_up_mode"
            ),
            retry=RetryPolicy(
                max_retries=int(settings.get("retry.max_retries", 3)),
                base_delay_s=float(settings.get("retry.base_delay_ms", 1000)) / 1000,
                max_delay_s=float(settings.get("retry.max_delay_ms", 60000)) / 1000,
                gate=RateGate.from_environ(os.environ),
            ),
            compaction=CompactionSettings(
                enabled=bool(settings.get("compaction.enabled", True)),
                reserve_tokens=int(settings.get("compaction.reserve_tokens", 16_384)),
                keep_recent_tokens=int(settings.get("compaction.keep_recent_tokens", 20_000)),
            ),
        )
    except (TypeError, ValueError) as exc:
        raise WorkbenchError(
            f"a retry or compaction setting is not a number: {exc}", "see docs/agent-and-models.md"
        ) from exc


def bound_tools(
    state: AgentState, settings: Settings, options: WorkbenchOptions, worktrees: list[Path]
) -> list[str]:
    """Confine the file tools (`--confine-tools`, `tools.confine`) to the project and its
    worktrees, and put the tools' commands in the sandbox (`--sandbox`, `sandbox`); the
    notices the user is told once, at start."""
    if options.confine_tools or settings.get("tools.confine") is True:
        state.confined_to = tuple(p.resolve() for p in (settings.project_root, *worktrees))
    box = choose_sandbox(settings, options.sandbox)
    state.sandbox = box.policy
    return box.notices
