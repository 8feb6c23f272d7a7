"""The agent loop's settings, read from the project's settings."""

from __future__ import annotations

import os

from workbench.agent.compaction_plan import CompactionSettings
from workbench.agent.config import AgentConfig, RetryPolicy
from workbench.agent.models.rate_gate import RateGate
from workbench.agent.queues import queue_mode
from workbench.config import Settings
from workbench.errors import WorkbenchError


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
