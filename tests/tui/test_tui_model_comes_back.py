"""A session's model comes back however it is reached again: `/resume` opens a session with the
model its replies were written by, and a recent model picked in `/model` with its endpoint."""

from __future__ import annotations

from pathlib import Path

from support.app_pilot import (
    SIZE,
    ask,
    build_app,
    chat_text,
    opened,
    plain,
    screen_shown,
    until,
    user_texts,
)
from support.openai_server import OpenAIServer, Reply

from workbench.tui.model_picker import ModelPicker


async def command(pilot, app, text: str) -> None:
    app.editor.focus()
    app.editor.insert(text)
    await pilot.press("enter")
    await app.workers.wait_for_complete()
    await pilot.pause()


def footer(app) -> str:
    return plain(app.status_bar.render(), 160)


async def test_resume_brings_the_sessions_model_back(make_app, script) -> None:
    first = script({"text": "from the first"})
    script({"text": "from the second"}, name="second.json")
    app = make_app(first)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await ask(pilot, app, "in the first session")
        session = app.workbench.state().session_id
        await command(pilot, app, "/new")
        await command(pilot, app, "/model scripted:second.json")
        await ask(pilot, app, "in the second session")
        assert "scripted:second.json" in footer(app)
        await command(pilot, app, f"/resume {session}")
        await until(pilot, lambda: user_texts(app) == ["in the first session"], "the session")
        await until(pilot, lambda: "scripted:turns.json" in footer(app), "its model in the footer")
        assert app.workbench.state().model == first


async def test_a_recent_model_picked_again_comes_with_its_endpoint(
    project: Path, monkeypatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with OpenAIServer() as server:
        server.add(Reply(text="first from the server"), Reply(text="again from the server"))
        app = build_app(project, model="openai/local", api_base=server.url, api_key="k")
        async with app.run_test(size=SIZE) as pilot:
            await opened(pilot)
            await ask(pilot, app, "one")
        app = build_app(project, model="demo", continue_session=True)
        async with app.run_test(size=SIZE) as pilot:
            await opened(pilot)
            assert "demo" in footer(app)
            app.editor.insert("/model")
            await pilot.press("enter")
            await screen_shown(pilot, ModelPicker, "the model picker")
            picker = app.screen
            await pilot.press(*"local")
            await until(pilot, lambda: picker.shown[:1] == ["openai/local"], "the recent one")
            await pilot.press("enter")
            await until(pilot, lambda: "openai/local" in footer(app), "the model switched")
            await ask(pilot, app, "two")
            assert "again from the server" in chat_text(app)
            assert len(server.requests) == 2, "the second question went to the same server"
