"""The loading state of one conversation branch, derived from its messages.

Every skill load is recorded on the message that carried it, as `details["skill_load"]` (one load)
or `details["skill_loads"]` (a bash command that printed several skill files; `skill_load` then
holds the first). A deactivation is recorded as `details["skill_deactivate"]`. Replaying those
records in order gives the state; during a run the same `apply` calls keep it current, so the state
of a resumed, forked or navigated branch equals the state the run had at that point.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import asdict, dataclass, field
from typing import Any

from workbench.messages import Message

REPEAT_WINDOW = 10
"""A skill loaded again within this many loads is a repeated load."""

LOAD_KEY, LOADS_KEY, DEACTIVATE_KEY = "skill_load", "skill_loads", "skill_deactivate"


@dataclass
class LoadRecord:
    """One skill load, as stored on a message: what, how, when, and the verdict.

    `via` is the loaded skill of the layer above that allowed this load (None for an entry point,
    a standalone or unlayered skill, or a violation). A `blocked` load did not happen. A `partial`
    load showed only part of the file (`head`, `sed -n`, `read` with a `limit`...).
    """

    skill: str
    layer: str | None
    verdict: str
    how: str
    time: float = field(default_factory=time.time)
    standalone: bool = False
    reason: str = ""
    suggestion: str = ""
    via: str | None = None
    blocked: bool = False
    partial: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LoadRecord | None:
        """The record in `data`, or None when it is not a well-formed record."""
        try:
            known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
            return cls(**known)
        except TypeError:
            return None


def records_of(message: Message) -> list[LoadRecord]:
    """The load records a message carries, in order."""
    raw = message.details.get(LOADS_KEY)
    if not isinstance(raw, list):
        single = message.details.get(LOAD_KEY)
        raw = [single] if isinstance(single, dict) else []
    return [r for r in (LoadRecord.from_dict(d) for d in raw if isinstance(d, dict)) if r]


def attach_records(details: dict[str, Any], records: list[LoadRecord]) -> None:
    """Record loads on a message's details, as `records_of` reads them: `skill_load` (the
    first), `skill_loads` (all, when one call loaded several)."""
    details[LOAD_KEY] = records[0].to_dict()
    if len(records) > 1:
        details[LOADS_KEY] = [r.to_dict() for r in records]


@dataclass
class LoadingState:
    """Loaded skills (name -> layer), the active compound, the current delegation chain, the
    activated skills, the recent loads of whole texts (for repeats: a partial view leaves most of
    the text unread, so reading it whole later is no repeat) and the whole load history."""

    loaded: dict[str, str | None] = field(default_factory=dict)
    active_compound: str | None = None
    chain: list[str] = field(default_factory=list)
    activated: set[str] = field(default_factory=set)
    recent: deque[str] = field(default_factory=lambda: deque(maxlen=REPEAT_WINDOW))
    history: list[LoadRecord] = field(default_factory=list)

    def apply(self, record: LoadRecord) -> None:
        """Take one load into account (a blocked load only enters the history)."""
        self.history.append(record)
        if record.blocked:
            return
        name = record.skill
        self.loaded[name] = record.layer
        if not record.partial and record.verdict != "violation":
            self.recent.append(name)  # out of order, it is read again once in order: no repeat
        if record.how in ("activate", "command"):
            self.activated.add(name)
        if record.layer == "compound":
            self.active_compound = name
            self.chain = [name]
        elif name in self.chain:
            del self.chain[self.chain.index(name) + 1 :]
        elif record.via is not None and record.via in self.chain:
            self.chain = [*self.chain[: self.chain.index(record.via) + 1], name]
        elif record.via is not None:
            self.chain = [record.via, name]
        elif record.layer is not None:
            self.chain = [name]

    def deactivate(self, name: str) -> None:
        """Forget a skill: it is no longer loaded, active, or on the chain."""
        self.loaded.pop(name, None)
        self.activated.discard(name)
        if name in self.chain:
            del self.chain[self.chain.index(name) :]
        if self.active_compound == name:
            self.active_compound = None

    def partially_loaded(self) -> set[str]:
        """Loaded skills of which only a part was ever seen (a head, a limited read)."""
        whole = {r.skill for r in self.history if not r.blocked and not r.partial}
        return {name for name in self.loaded if name not in whole}

    def forget_recent(self) -> None:
        """After a compaction the loaded texts left the context: loading them again is no repeat."""
        self.recent.clear()

    def copy(self) -> LoadingState:
        return LoadingState(
            loaded=dict(self.loaded),
            active_compound=self.active_compound,
            chain=list(self.chain),
            activated=set(self.activated),
            recent=deque(self.recent, maxlen=REPEAT_WINDOW),
            history=list(self.history),
        )

    @property
    def violations(self) -> list[LoadRecord]:
        return [r for r in self.history if r.verdict != "ok"]

    def apply_message(self, message: Message) -> None:
        """Take one message of the branch into account."""
        if message.role == "compaction":
            self.forget_recent()
        for record in records_of(message):
            self.apply(record)
        deactivated = message.details.get(DEACTIVATE_KEY)
        if isinstance(deactivated, dict) and isinstance(deactivated.get("skill"), str):
            self.deactivate(deactivated["skill"])

    @classmethod
    def derive(cls, messages: list[Message]) -> LoadingState:
        """The state at the end of a branch whose messages are `messages`."""
        state = cls()
        for message in messages:
            state.apply_message(message)
        return state
