"""What an experiment cost, in its commits: `Workbench-Cost:` and `Workbench-Tokens:` trailers.

`git log` then tells what a branch's work cost (`git log --format='%(trailers)'`). The figures are
the branch's since its fork, as `/status` shows them (`workbench.agent.costs`: its calls, its
sub-agents, the experiments merged into it). A message that already carries either trailer (a
draft the user edited, a message written by hand) is committed as it is.
"""

from __future__ import annotations

import re

from workbench.agent.costs import UsageTotals, entry_totals
from workbench.agent.store import Entry

COST_KEY = "Workbench-Cost"
TOKENS_KEY = "Workbench-Tokens"
TRAILER_LINE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9-]*): \S")
"""A line of a git trailer block (`Key: value`)."""
KNOWN_TRAILERS = frozenset(
    k.lower()
    for k in (
        "Signed-off-by", "Co-authored-by", "Reviewed-by", "Acked-by", "Tested-by",
        "Reported-by", "Suggested-by", "Helped-by", "Change-Id", "Fixes", "Refs", "Cc",
    )
)  # fmt: skip
"""Keys that make a last paragraph a trailer block; a drafted `Result: ...` paragraph is prose."""


def trailer_lines(usage: UsageTotals) -> list[str]:
    """The two trailers for these figures; an unknown cost is said so, never $0."""
    cost = "unknown" if usage.cost is None else f"${usage.cost:.4f}"
    tokens = (
        f"{usage.input_tokens} in, {usage.output_tokens} out, "
        f"{usage.cache_read_tokens} cache read, {usage.cache_write_tokens} cache write"
    )
    return [f"{COST_KEY}: {cost}", f"{TOKENS_KEY}: {tokens}"]


def branch_trailers(entries: list[Entry]) -> list[str]:
    """The trailers of a branch whose own entries (since its fork) are `entries`; none when no
    call on it reported usage (no figures to tell)."""
    usage = entry_totals(entries)
    return trailer_lines(usage) if usage.tokens else []


def own_on_path(path: list[Entry], branch: str) -> list[Entry]:
    """The entries of `branch` on a path from the root: those written on it since its fork."""
    return [entry for entry in path if entry.branch == branch]


def has_trailers(message: str) -> bool:
    keys = (f"{COST_KEY.lower()}:", f"{TOKENS_KEY.lower()}:")
    return any(line.strip().lower().startswith(keys) for line in message.splitlines())


def with_trailers(message: str, trailers: list[str]) -> str:
    """`message` with `trailers` at its end: in its trailer block when it ends with one (a
    `Signed-off-by:` stays a trailer), else as a new paragraph. Unchanged when it already
    carries ours, or when there are none to add."""
    if not trailers or has_trailers(message):
        return message
    text = message.rstrip()
    paragraphs = text.split("\n\n")
    keys = [TRAILER_LINE.match(line) for line in paragraphs[-1].splitlines()]
    in_block = (
        len(paragraphs) > 1
        and all(keys)
        and any(k.group(1).lower() in KNOWN_TRAILERS for k in keys if k)
    )
    return text + ("\n" if in_block else "\n\n") + "\n".join(trailers) + "\n"
