"""Rich styles and marks shared by the transcript records and the panels.

Colours follow Textual's default dark theme, so Rich-drawn text matches the CSS-styled widgets.
"""

from __future__ import annotations

PRIMARY = "#0178D4"
SUCCESS_COLOUR = "#4EBF71"
WARNING_COLOUR = "#FFA62B"
ERROR_COLOUR = "#E05561"

USER_MARK = f"bold {PRIMARY}"
REPLY_MARK = SUCCESS_COLOUR
DIM = "dim"
THINKING = "dim italic"
SUCCESS = SUCCESS_COLOUR
WARNING = WARNING_COLOUR
ERROR = f"bold {ERROR_COLOUR}"
SKIPPED = f"italic {WARNING_COLOUR}"
CHANGE_STYLES = {"added": SUCCESS, "modified": WARNING, "deleted": ERROR}
"""A changed file's kind, in the status and diff views."""

LAYER_COLOURS = {"compound": "#C678DD", "molecule": "#56B6C2", "atom": "#98C379"}
LAYER_LETTERS = {"compound": "C", "molecule": "M", "atom": "A"}

TOOL_ICONS: dict[str, tuple[str, str]] = {
    "running": ("◌", WARNING_COLOUR),
    "ok": ("✓", SUCCESS_COLOUR),
    "error": ("✗", ERROR),
    "not run": ("✗", ERROR),
    "skipped": ("⊘", SKIPPED),
}
NOTE_ICONS: dict[str, tuple[str, str]] = {
    "info": ("·", DIM),
    "warning": ("⚠", WARNING_COLOUR),
    "error": ("✗", ERROR),
    "skill": ("◆", f"bold {ERROR_COLOUR}"),
    "compaction": ("≡", "#56B6C2"),
    "summary": ("≡", "#56B6C2"),
}
