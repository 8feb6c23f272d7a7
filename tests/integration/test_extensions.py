"""Extensions: project code runs only once trusted; hooks block and patch; failures are reported."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from support.workbench_process import run_workbench, write_script

from workbench.config import agent_dir
from workbench.runtime import Workbench, WorkbenchOptions
from workbench.skills.graph import SkillGraph
from workbench.trust import TrustStore

GUARD = textwrap.dedent(
    """
    from workbench.tool import ToolResult

    def register(api):
        def block_bash(event):
            if event.tool_name == "bash":
                event.block = "bash is disabled in this project"

        def mark_reads(event):
            if event.tool_name == "read":
                event.result = ToolResult(event.result.text + " [seen by guard]")

        api.on("tool_call", block_bash)
        api.on("tool_result", mark_reads)
    """
)

TURNS = [
    {
        "tool_calls": [
            {"name": "bash", "arguments": {"command": "echo ran > ran.txt"}},
            {"name": "read", "arguments": {"path": "data.txt"}},
        ]
    },
    {"text": "done"},
]


def install(folder: Path, name: str, source: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(source)
    return path


def events_of(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


def results(events: list[dict]) -> list[tuple[str, bool]]:
    return [
        (e["result"]["text"], e["result"]["is_error"])
        for e in events
        if e["type"] == "tool_execution_end"
    ]


def test_untrusted_project_extensions_are_skipped_and_listed(project):
    guard = install(project / ".pi" / "extensions", "guard.py", GUARD)
    (project / "data.txt").write_text("payload\n")
    model = write_script(project, TURNS)
    done = run_workbench("--mode", "json", "--model", model, "go", cwd=project)
    events = events_of(done.stdout)
    notices = [e for e in events if e["type"] == "notice"]
    assert notices == [
        {
            "type": "notice",
            "text": f"extension {guard} skipped: project not trusted; run with --trust, "
            f"trust the project in the app, or `workbench trust {project}`",
            "level": "warning",
        }
    ]
    assert (project / "ran.txt").exists(), "the untrusted guard must not have run"
    assert results(events)[1] == ("payload", False)


def test_trusted_extensions_block_and_patch(project):
    install(project / ".pi" / "extensions", "guard.py", GUARD)
    (project / "data.txt").write_text("payload\n")
    model = write_script(project, TURNS)
    done = run_workbench("--mode", "json", "--trust", "--model", model, "go", cwd=project)
    assert results(events_of(done.stdout)) == [
        ("bash is disabled in this project", True),
        ("payload [seen by guard]", False),
    ]
    assert not (project / "ran.txt").exists()
    assert not TrustStore().is_trusted(project), "--trust grants one run, it records nothing"


def test_user_extensions_need_no_trust_and_broken_ones_are_reported(project):
    user_dir = agent_dir() / "extensions"
    install(user_dir, "guard.py", GUARD)
    broken = install(user_dir, "broken.py", "def register(api):\n    raise RuntimeError('oops')\n")
    install(user_dir, "_helper.py", "raise SystemExit('helpers are not extensions')\n")
    (project / "data.txt").write_text("payload\n")
    model = write_script(project, TURNS)
    done = run_workbench("--mode", "json", "--model", model, "go", cwd=project)
    events = events_of(done.stdout)
    assert [e["text"] for e in events if e["type"] == "notice"] == [
        f"extension {broken} failed to load: RuntimeError('oops')"
    ]
    assert results(events)[0] == ("bash is disabled in this project", True)


async def test_trusting_a_project_is_recorded_and_loads_its_extensions(project):
    install(project / ".pi" / "extensions", "guard.py", GUARD)
    model = write_script(project, TURNS)
    options = WorkbenchOptions(cwd=project, model=model, skills=SkillGraph([]))
    first = await Workbench.open(options)
    assert first.state().extensions["skipped"] and not first.state().extensions["loaded"]
    await first.trust_project()
    assert [Path(p).name for p in first.state().extensions["loaded"]] == ["guard.py"]
    assert TrustStore().is_trusted(project)
    second = await Workbench.open(options)
    assert [Path(p).name for p in second.state().extensions["loaded"]] == ["guard.py"]


async def test_extensions_add_commands_tools_and_steering(project):
    source = textwrap.dedent(
        """
        from workbench.tool import Tool, ToolResult

        def register(api):
            async def shout(args, ctx):
                api.send_message("the user wants a summary now", deliver_as="steer")
                return ToolResult(args["text"].upper())

            api.register_tool(Tool("shout", "shout text", {"type": "object",
                "properties": {"text": {"type": "string"}}, "required": ["text"]}, shout))
            api.register_command("hello", lambda args: f"hello, {args or 'world'}")
        """
    )
    install(agent_dir() / "extensions", "shout.py", source)
    turns = [
        {"tool_calls": [{"name": "shout", "arguments": {"text": "hi"}}] * 2},
        {"text": "summary"},
    ]
    model = write_script(project, turns)
    workbench = await Workbench.open(
        WorkbenchOptions(cwd=project, model=model, skills=SkillGraph([]))
    )
    events = []
    workbench.subscribe(events.append)
    await workbench.prompt("/hello there")
    assert [e.text for e in events if e.type == "notice"] == ["hello, there"]
    await workbench.prompt("shout twice")
    await workbench.wait_idle()
    texts = [m.text for m in workbench.agent.state.messages if m.role in ("tool_result", "notice")]
    assert texts == ["HI", "Skipped due to queued user message.", "the user wants a summary now"]
    assert "shout" in workbench.system_prompt


async def test_next_turn_messages_travel_with_the_next_prompt(project):
    source = textwrap.dedent(
        """
        def register(api):
            def remember(event):
                api.send_message("the repository uses tabs", deliver_as="next_turn")

            api.on("session_start", remember)
        """
    )
    install(agent_dir() / "extensions", "remember.py", source)
    model = write_script(project, [{"text": "noted"}])
    workbench = await Workbench.open(
        WorkbenchOptions(cwd=project, model=model, skills=SkillGraph([]))
    )
    await workbench.prompt("format the file")
    await workbench.wait_idle()
    assert [(m.role, m.text) for m in workbench.agent.state.messages] == [
        ("notice", "the repository uses tabs"),
        ("user", "format the file"),
        ("assistant", "noted"),
    ]


SLOPPY = textwrap.dedent(
    """
    def register(api):
        def block_wrongly(event):
            event.block = True  # a reason string was meant

        def patch_wrongly(event):
            event.result.text = None

        def context_wrongly(event):
            event.messages.append("remember the rules")

        api.on("tool_call", block_wrongly)
        api.on("tool_result", patch_wrongly)
        api.on("context", context_wrongly)
    """
)


def test_a_hook_field_set_to_the_wrong_type_is_reported_and_ignored(project):
    sloppy = install(agent_dir() / "extensions", "sloppy.py", SLOPPY)
    (project / "data.txt").write_text("payload\n")
    turns = [{"tool_calls": [{"name": "read", "arguments": {"path": "data.txt"}}]}, {"text": "ok"}]
    model = write_script(project, turns)
    done = run_workbench("--mode", "json", "--model", model, "go", cwd=project)
    events = events_of(done.stdout)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert events[-1] == {"type": "agent_end", "stop_reason": "completed", "error": None}
    assert results(events) == [("payload", False)], "the read ran and its result was kept"
    warnings = sorted({e["text"] for e in events if e["type"] == "notice"})
    assert warnings == [
        f"extension {sloppy.name}: its context hook handler context_wrongly put a str into "
        "messages, which must be a list of messages; the change was ignored",
        f"extension {sloppy.name}: its tool_call hook handler block_wrongly set block to True "
        "(bool), which must be a reason (str) or None; the change was ignored",
        f"extension {sloppy.name}: its tool_result hook handler patch_wrongly set result.text to "
        "None (NoneType), which must be str; the change was ignored",
    ]


async def test_trusting_a_project_later_keeps_to_the_tools_allowlist(project):
    tool_source = textwrap.dedent(
        """
        from workbench.tool import Tool, ToolResult

        def register(api):
            async def shout(args, ctx):
                return ToolResult("HI")

            api.register_tool(Tool("shout", "shout", {"type": "object"}, shout))
        """
    )
    install(project / ".pi" / "extensions", "voices.py", tool_source)
    model = write_script(project, [])
    options = WorkbenchOptions(cwd=project, model=model, skills=SkillGraph([]), tools=["read"])
    workbench = await Workbench.open(options)
    await workbench.trust_project()
    assert list(workbench.agent.state.tools) == ["read"], "the trusted extension's tools stay out"
    await workbench.close()
