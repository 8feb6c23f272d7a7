"""The model's failures in the chat say what happened and what to do: a rate limit a retry got
past is no failure, a refused key names where it came from, a cut-off reply says what it kept."""

from __future__ import annotations

from pathlib import Path

from support.app_pilot import SIZE, ask, build_app, chat_text, items, opened
from support.openai_server import OpenAIServer, Reply, Status

from workbench.tui.items import NoteItem


def notes(app) -> list[str]:
    """Each note in the chat, its hint after a slash."""
    shown = [item for item in items(app) if isinstance(item, NoteItem)]
    return [item.text + (f" / {item.hint}" if item.hint else "") for item in shown]


async def test_model_failures_say_what_happened_and_what_to_do(project: Path) -> None:
    with OpenAIServer() as server:
        server.add(Status(429, "slow down", retry_after=0.05), Reply(text="ok now"))
        server.add(Status(401, "Incorrect API key provided"))
        server.add(Reply(text="This answer stops right here", cut_after=4))
        app = build_app(project, model="openai/m", api_base=server.url, api_key="k")
        async with app.run_test(size=SIZE) as pilot:
            await opened(pilot)
            await ask(pilot, app, "one")
            assert "ok now" in chat_text(app)
            said = notes(app)
            assert any(note.startswith("Rate-limited, retried, fine") for note in said), said
            assert not any("failed" in note for note in said), said
            await ask(pilot, app, "two")
            refused = notes(app)[-1]
            assert refused.startswith(f"the server at {server.url} refused the API key"), refused
            assert refused.endswith("/ the key came from --api-key: check it there"), refused
            await ask(pilot, app, "three")
            cut = notes(app)[-1]
            assert "cut off" in cut and "first 18 characters are kept" in cut, cut
            assert "(failed: the model's reply was cut off" in chat_text(app)
