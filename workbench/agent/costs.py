"""What a conversation cost: tokens (with the cache's share), USD and the cache hit rate, summed.

One sum for every figure a front end shows (the footer's session totals, a turn, a branch since
its fork, a merged experiment, the tree's branches, a commit's trailers), built from what the log
holds, so it is the same whenever it is recomputed:

- each assistant message's `usage` (one model call; its `cost` was priced when it arrived);
- each sub-agent result's children (`details["subagent"]["results"]`: their tokens and cost), so
  a child's cost rolls up into the turn and branch of the parent that ran it;
- each merge's `usage` (what the merged experiment cost, recorded once on the parent by the merge:
  only the entries the parent did not have yet), so a parent's total counts it once;
- each summary call: a compaction's or a path left behind's (`details["usage"]` of the
  compaction or branch summary message), a merge's (`summary_usage` of the merge entry), so
  the side requests a branch made count with it (commit message drafts are not recorded yet).

The cost is None ("unknown") as soon as one priced part is unknown: a sum that silently left a
call out would be a wrong figure, and $0 would be a lie. The hit rate is cache reads over all
prompt tokens (uncached input + cache reads + cache writes).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from workbench.agent.store import Entry
from workbench.messages import USAGE_COUNTS, Message, Usage, token_count, usd

TOKEN_FIELDS = USAGE_COUNTS
CHILD_FIELDS = {
    "input": "input_tokens",
    "output": "output_tokens",
    "cache_read": "cache_read_tokens",
    "cache_write": "cache_write_tokens",
}
"""A sub-agent report's token names (`ChildReport.usage`) and ours."""
USAGE_UNKNOWN = "usage_unknown"
"""Set in a reply's `details` when its server reported no usage (or none that could be read):
its cost is unknown, not $0. Offline models report none and cost nothing."""


def _int(value: Any) -> int:
    return token_count(value) or 0


@dataclass
class UsageTotals:
    """Summed usage; `calls` counts the model calls in it (sub-agents' included)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost: float | None = 0.0
    calls: int = 0

    @property
    def prompt_tokens(self) -> int:
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens

    @property
    def tokens(self) -> int:
        """Every token, in and out, cached or not."""
        return self.prompt_tokens + self.output_tokens

    @property
    def hit_rate(self) -> float | None:
        """Cache reads over all prompt tokens; None before any call reported usage."""
        total = self.prompt_tokens
        return self.cache_read_tokens / total if total else None

    def add_tokens(self, tokens: dict[str, Any], cost: Any, calls: int = 1) -> None:
        """Add one usage given as a dict of our token names and its cost (None: unknown). It
        may come from someone else's session: a count that cannot be read adds nothing and,
        like a price that cannot be read (a negative one), makes the cost unknown."""
        counts = [token_count(tokens.get(name)) for name in TOKEN_FIELDS]
        for name, count in zip(TOKEN_FIELDS, counts, strict=True):
            setattr(self, name, getattr(self, name) + (count or 0))
        self.calls += calls
        price = usd(cost)
        if self.cost is not None:
            self.cost = None if price is None or None in counts else self.cost + price

    def add(self, other: UsageTotals) -> None:
        for name in TOKEN_FIELDS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.calls += other.calls
        self.cost = None if self.cost is None or other.cost is None else self.cost + other.cost

    def to_json(self) -> dict[str, Any]:
        return {
            **{name: getattr(self, name) for name in TOKEN_FIELDS},
            "cost": self.cost,
            "hit_rate": self.hit_rate,
            "calls": self.calls,
        }

    @classmethod
    def from_json(cls, data: Any) -> UsageTotals:
        """Totals as `to_json` wrote them (a merge entry's); anything else counts as nothing."""
        totals = cls()
        if isinstance(data, dict):
            totals.add_tokens(data, data.get("cost"), _int(data.get("calls")))
        return totals

    def cost_text(self) -> str:
        return "cost unknown" if self.cost is None else f"${self.cost:.4f}"

    def amount_text(self) -> str:
        """`$0.0123` or `unknown`: the cost where a label already says "cost"."""
        return "unknown" if self.cost is None else f"${self.cost:.4f}"

    def tokens_text(self) -> str:
        """`12,345 in / 678 out / 40,000 cache read / 2,000 cache write`: the parts that are
        there (uncached input and output always)."""
        parts = [f"{self.input_tokens:,} in", f"{self.output_tokens:,} out"]
        if self.cache_read_tokens:
            parts.append(f"{self.cache_read_tokens:,} cache read")
        if self.cache_write_tokens:
            parts.append(f"{self.cache_write_tokens:,} cache write")
        return " / ".join(parts)

    def hit_rate_text(self) -> str:
        rate = self.hit_rate
        return "no cache figures" if rate is None else f"cache hit rate {rate:.0%}"


def add_record(totals: UsageTotals, kind: str, usage: Any, details: Any) -> None:
    """Add what one record of the log cost: an assistant message's usage, a sub-agent result's
    children, a merge entry's experiment (`kind` is the message role or the entry type)."""
    if kind == "assistant" and isinstance(usage, dict):
        totals.add_tokens(usage, usage.get("cost"))
    elif kind == "assistant" and isinstance(details, dict) and details.get(USAGE_UNKNOWN):
        totals.add_tokens({}, None)  # a reply whose server reported no usage: cost unknown
    elif kind == "tool_result" and isinstance(details, dict):
        subagent = details.get("subagent")
        results = subagent.get("results") if isinstance(subagent, dict) else None
        for child in results if isinstance(results, list) else []:
            if isinstance(child, dict) and child.get("turns"):
                reported = child.get("usage")
                raw = reported if isinstance(reported, dict) else {}
                tokens = {ours: raw.get(theirs) for theirs, ours in CHILD_FIELDS.items()}
                totals.add_tokens(tokens, child.get("cost"), _int(child.get("turns")))
    elif kind == "merge":  # `usage`: the experiment; `details`: the summary call's usage
        totals.add(UsageTotals.from_json(usage))
        if isinstance(details, dict):
            totals.add_tokens(details, details.get("cost"))
    elif kind in ("compaction", "branch_summary") and isinstance(details, dict):
        summary = details.get("usage")  # the summary call that made it
        if isinstance(summary, dict):
            totals.add_tokens(summary, summary.get("cost"))


def message_totals(messages: Iterable[Message]) -> UsageTotals:
    """What these messages cost (a merge's message carries its experiment's totals)."""
    totals = UsageTotals()
    for message in messages:
        kind = message.details.get("entry_type") or message.role
        if kind == "merge":
            details = message.details
            add_record(totals, kind, details.get("usage"), details.get("summary_usage"))
        else:
            usage = vars(message.usage) if message.usage is not None else None
            add_record(totals, kind, usage, message.details)
    return totals


def entry_totals(entries: Iterable[Entry], merged: bool = True) -> UsageTotals:
    """What these log entries cost (see the module docstring); `merged=False` leaves out what
    merged experiments cost (for a sum over every entry, where their own entries are counted)."""
    totals = UsageTotals()
    for entry in entries:
        payload = entry.payload
        if entry.type == "merge":
            experiment = payload.get("usage") if merged else None
            add_record(totals, "merge", experiment, payload.get("summary_usage"))
        else:
            add_record(totals, entry.type, payload.get("usage"), payload.get("details"))
    return totals


class PricedText(str):
    """The text a side request wrote (a summary), with what its call used (`usage`: a
    `Usage` as a dict, None when the server reported none)."""

    usage: dict[str, Any] | None

    def __new__(cls, text: str, usage: dict[str, Any] | None) -> PricedText:
        written = super().__new__(cls, text)
        written.usage = usage
        return written


def text_usage(text: str) -> dict[str, Any] | None:
    """The usage of a summary's call, when its text came from a model (`PricedText`)."""
    return getattr(text, "usage", None)


def usage_of(usage: Usage | None) -> UsageTotals:
    """One call's usage as totals."""
    totals = UsageTotals()
    if usage is not None:
        totals.add_tokens(vars(usage), usage.cost)
    return totals
