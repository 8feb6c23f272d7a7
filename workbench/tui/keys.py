"""The app's keys, as `/help`, the README and docs/app.md show them (a test keeps them equal),
and the legend of the marks the panels draw, as `/help` shows it."""

from __future__ import annotations

KEYS: list[tuple[str, str]] = [
    (
        "Enter",
        "send; while the agent works, steer: it hears you after the running tool and skips "
        "the rest of that reply's tool calls",
    ),
    (
        "Ctrl+J or Alt+Enter",
        "queue a follow-up: delivered when the agent would stop (Alt+Enter only where the "
        "terminal sends it)",
    ),
    (
        "Shift+Enter, or \\ then Enter",
        "new line (Shift+Enter needs the kitty keyboard protocol); in a paste or burst of keys, "
        "an Enter or Ctrl+J followed at once by more text is a new line too",
    ),
    ("Alt+Up", "take the last queued message back into the editor"),
    ("Esc", "stop the run; queued messages return to the editor (idle: back to the editor)"),
    (
        "Ctrl+C",
        "clear the editor (Ctrl+Z brings the text back); while the agent works, stop it as Esc "
        "does; on an empty editor with nothing running, press it twice to quit",
    ),
    ("Tab or Right", "complete a slash command (Tab elsewhere: next pane)"),
    ("Up / Down", "choose a completion while they show"),
    ("Ctrl+P", "command palette: every command, searchable"),
    ("F1", "help: keys, commands, and the legend of the panels' marks"),
    ("F2 / F3 / F4", "go to the skill graph / the conversation tree / the chat"),
    ("Chat: Up/Down, Enter", "select an entry, expand or collapse it"),
    (
        "Skill graph: Enter, Alt+A, Alt+D",
        "open a skill (projections, lint findings), activate, deactivate",
    ),
    (
        "Tree: Enter, Alt+E, Alt+G, Alt+F, Alt+L, Alt+M, Alt+S",
        "go to the turn (with its reply) or branch, edit and resend that question, go and "
        "summarise the path left, fork after the turn, label, merge, status",
    ),
    ("Status: Up/Down, Enter, Alt+D", "choose a changed file, show its diff, show the whole diff"),
    (
        "Letters in a panel or view",
        "are text: the editor takes them (panel actions need Alt); a view closes first",
    ),
    (
        "Quick pick: A-D, Enter, Esc",
        "pick an option (a lone letter; typing on makes it your own words), the highlighted "
        "one, or type your own answer",
    ),
]

WELCOME = (
    "Welcome to workbench. Enter sends · Ctrl+J queues a follow-up · Esc stops the agent · "
    "F2 skill graph · F3 conversation tree · Ctrl+P every command · F1 keys and help."
)

LEGEND: list[tuple[str, str]] = [
    ("C  M  A", "skill graph: compound, molecule, atom, each in its layer's colour"),
    ("◇", "a standalone atom: it may be read alone, outside its molecule"),
    ("●  ◐", "a loaded skill; ◐ when only a part of its file was read"),
    ("▶", "the active compound; in the tree, where you are; in a title, the focused panel"),
    ("⚠N", "N violations (in red): the skill was read out of the graph's order"),
    ("⎇  ›  ✓  ⇐  ≡", "tree: a branch, a question, a checkpoint, a merge, a summary"),
    (
        "enforcer warn",
        "a violation is told and the read goes on (out of order: the rest of that "
        "reply's calls are skipped)",
    ),
    ("enforcer block", "a read out of order is refused, with the reason and the skill to load"),
    ("enforcer off", "the graph is shown, not enforced"),
]
"""The marks of the skill graph and the tree, and the enforcer's modes (the footer shows it)."""
