"""The agent loop's settings: how its queues deliver, how model calls are retried, when to compact.

Below the loop and its parts so that each of them can read its own settings without importing
the loop (`workbench.runtime` builds them from the user's settings).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.agent.compaction_plan import CompactionSettings
from workbench.agent.models.client import ModelError
from workbench.agent.models.rate_gate import RateGate
from workbench.agent.queues import QueueMode


@dataclass
class RetryPolicy:
    """Our own retries (litellm's and the SDK's are off): exponential backoff from `base_delay_s`,
    or the server's Retry-After when it says so, capped at `max_delay_s`. With a `gate`, a rate
    limit holds back every process behind the same gate, not this one alone (`rate_gate`)."""

    max_retries: int = 3
    base_delay_s: float = 1.0
    max_delay_s: float = 60.0
    gate: RateGate | None = None

    def delay(self, attempt: int, error: ModelError) -> float:
        backoff = self.base_delay_s * 2.0 ** (attempt - 1)
        if error.retry_after is not None:
            backoff = max(error.retry_after, 0.0)
        return min(backoff, self.max_delay_s)


@dataclass
class AgentConfig:
    """One agent's settings: its queues' delivery modes, its retries and its compaction."""

    steering_mode: QueueMode = "one-at-a-time"
    follow_up_mode: QueueMode = "one-at-a-time"
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    compaction: CompactionSettings = field(default_factory=CompactionSettings)
