"""Alt+Enter, the follow-up key, as terminals send it.

Most terminals (xterm, GNOME's, tmux whatever its `extended-keys`) send Alt+Enter as Esc then
Enter; Textual's input parser reads that as a plain Enter, which would steer a message meant to
wait. `read_alt_enter` teaches the parser the pair. Terminals whose Option key sends no Esc (the
macOS Terminal and iTerm2 as they come) still send a plain Enter: `alt_enter_note` says so once,
as the app opens; Ctrl+J queues a follow-up everywhere.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import cast

from textual._ansi_sequences import ANSI_SEQUENCES_KEYS

ESC_ENTER = "\x1b\r"
OPTION_WITHOUT_ESC = {"Apple_Terminal": "Terminal", "iTerm.app": "iTerm2"}
"""Terminals (by `TERM_PROGRAM`) whose Option key sends no Esc unless set to ("Use Option as
Meta key"; iTerm2: Option key sends "Esc+")."""


class _Key(enum.StrEnum):
    """A key name as Textual's sequence table holds them (its `Keys` has no Alt+Enter)."""

    ALT_ENTER = "alt+enter"


def read_alt_enter() -> None:
    """Esc then Enter, as one sequence, is Alt+Enter (as the kitty keyboard protocol's is)."""
    table = cast("dict[str, tuple[enum.Enum, ...]]", ANSI_SEQUENCES_KEYS)  # a dict, typed read-only
    table.setdefault(ESC_ENTER, (_Key.ALT_ENTER,))


def alt_enter_note(environ: Mapping[str, str]) -> str | None:
    """What to tell once about Alt+Enter in this terminal, or None when it sends it."""
    name = OPTION_WITHOUT_ESC.get(environ.get("TERM_PROGRAM", ""))
    if name is None:
        return None
    return (
        f"Alt+Enter may arrive as a plain Enter in {name} (unless its Option key sends Esc): "
        "Ctrl+J queues a follow-up in every terminal."
    )
