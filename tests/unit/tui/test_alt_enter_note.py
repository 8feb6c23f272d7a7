"""Where Alt+Enter arrives as a plain Enter, the app says so once; elsewhere it says nothing."""

from __future__ import annotations

from workbench.tui.alt_enter import alt_enter_note


def test_the_macos_terminals_are_told_to_use_ctrl_j() -> None:
    note = alt_enter_note({"TERM_PROGRAM": "Apple_Terminal"})
    assert note is not None and "Terminal" in note and "Ctrl+J" in note
    assert alt_enter_note({"TERM_PROGRAM": "iTerm.app"}) is not None


def test_terminals_that_send_esc_enter_or_kitty_keys_hear_nothing() -> None:
    for environ in ({"TERM": "xterm-256color"}, {"TERM_PROGRAM": "tmux", "TMUX": "/tmp/t"}, {}):
        assert alt_enter_note(environ) is None
