"""`workbench --mode acp` driven by the protocol's own Python SDK client: a real process over
stdio, the local scripted model, no mocks of workbench."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time

import pytest
from acp.schema import HttpMcpServer
from support.acp_client import TIMEOUT, acp_workbench, prompt_blocks
from support.git_project import make_project
from support.skill_trees import write_tree
from support.workbench_process import write_script


def read_call(path: str, call_id: str) -> dict:
    return {"name": "read", "arguments": {"path": path}, "id": call_id}


def kinds(updates) -> list[str]:
    return [u.session_update for u in updates]


async def ask(conn, session_id: str, text: str) -> str:
    done = await asyncio.wait_for(
        conn.prompt(session_id=session_id, prompt=prompt_blocks(text)), TIMEOUT
    )
    return done.stop_reason


async def test_a_prompt_streams_the_reply_and_its_tool_calls(project):
    (project / "notes.txt").write_text("alpha\nbeta\n")
    model = write_script(
        project,
        [
            {
                "thinking": "I should read it first.",
                "text": "Let me read the notes and fix them.",
                "tool_calls": [
                    read_call("notes.txt", "c1"),
                    {
                        "name": "edit",
                        "arguments": {"path": "notes.txt", "old_text": "beta", "new_text": "gamma"},
                        "id": "c2",
                    },
                    {"name": "bash", "arguments": {"command": "echo hi"}, "id": "c3"},
                ],
            },
            {"text": "All done now.", "usage": {"input_tokens": 900, "output_tokens": 12}},
        ],
    )
    async with acp_workbench(project, "--model", model) as (conn, client, init):
        assert init.protocol_version == 1
        caps = init.agent_capabilities
        assert caps.load_session is True
        assert caps.prompt_capabilities.embedded_context is True
        assert caps.session_capabilities.list is not None
        assert caps.session_capabilities.fork is not None
        assert caps.mcp_capabilities.http and caps.mcp_capabilities.sse
        assert init.agent_info.name == "workbench" and init.agent_info.version

        mcp = HttpMcpServer(type="http", name="docs", url="http://127.0.0.1:9/mcp", headers=[])
        new = await conn.new_session(cwd=str(project), mcp_servers=[mcp])
        sid = new.session_id
        [docs] = new.field_meta["workbench"]["mcpServers"]["servers"]
        assert (docs["name"], docs["source"], docs["state"]) == ("docs", "client", "failed")
        assert new.modes.current_mode_id == "warn"
        assert [m.id for m in new.modes.available_modes] == ["warn", "block", "off"]
        [model_option] = new.config_options
        assert (model_option.id, model_option.category) == ("model", "model")
        assert model_option.current_value == model

        assert await ask(conn, sid, "fix the notes") == "end_turn"
        updates = client.of(sid)
        assert "available_commands_update" in kinds(updates)
        assert "MCP server docs did not start" in client.text(sid)
        assert client.text(sid, "agent_thought_chunk") == "I should read it first."
        chunks = client.of(sid, "agent_message_chunk")
        assert len([c for c in chunks if "notes" in c.content.text or "done" in c.content.text])
        assert "Let me read the notes and fix them." in client.text(sid)
        assert client.text(sid).endswith("All done now.")

        starts = {u.tool_call_id: u for u in client.of(sid, "tool_call")}
        assert [(starts[c].kind, starts[c].status) for c in ("c1", "c2", "c3")] == [
            ("read", "in_progress"),
            ("edit", "in_progress"),
            ("execute", "in_progress"),
        ]
        assert starts["c1"].locations[0].path == str(project / "notes.txt")
        ends = {
            u.tool_call_id: u for u in client.of(sid, "tool_call_update") if u.status is not None
        }
        assert {c: ends[c].status for c in ("c1", "c2", "c3")} == dict.fromkeys(
            ("c1", "c2", "c3"), "completed"
        )
        diff = next(c for c in ends["c2"].content if c.type == "diff")
        assert (diff.path, diff.old_text, diff.new_text) == (
            str(project / "notes.txt"),
            "alpha\nbeta\n",
            "alpha\ngamma\n",
        ), "the whole file before and after: editors draw the diff over the file"
        assert "hi" in ends["c3"].content[0].content.text
        order = kinds(updates)
        assert order.index("tool_call") < order.index("tool_call_update")
        context = client.of(sid, "usage_update")[-1]
        assert context.used >= 900 and context.size > context.used
        assert (project / "notes.txt").read_text() == "alpha\ngamma\n"


async def test_cancel_mid_stream_ends_the_prompt_cancelled_at_once(project):
    words = " ".join(f"word{n}" for n in range(200))
    model = write_script(project, [{"text": words, "delay_ms": 50}, {"text": "fresh answer"}])
    async with acp_workbench(project, "--model", model) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        asked = time.monotonic()
        running = asyncio.create_task(conn.prompt(session_id=sid, prompt=prompt_blocks("talk")))
        await client.wait_for(lambda u: u.session_update == "agent_message_chunk")
        first_chunk = next(
            t for s, u, t in client.updates if u.session_update == "agent_message_chunk"
        )
        cancelled = time.monotonic()
        await conn.cancel(session_id=sid)
        done = await asyncio.wait_for(running, TIMEOUT)
        ended = time.monotonic()
        assert done.stop_reason == "cancelled"
        assert ended - cancelled < 2.0
        print(
            f"prompt->first chunk {first_chunk - asked:.3f}s; cancel->end {ended - cancelled:.3f}s"
        )
        assert "word199" not in client.text(sid)
        assert await ask(conn, sid, "again") == "end_turn"
        assert client.text(sid).endswith("fresh answer")


async def test_load_in_a_fresh_process_replays_the_branch_and_list_finds_it(project):
    (project / "notes.txt").write_text("alpha\n")
    model = write_script(
        project,
        [
            {"text": "Reading.", "tool_calls": [read_call("notes.txt", "c1")]},
            {"text": "It says alpha."},
        ],
    )
    async with acp_workbench(project, "--model", model) as (conn, _, _):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        assert await ask(conn, sid, "what do the notes say?") == "end_turn"

    async with acp_workbench(project, "--model", model) as (conn, client, _):
        listed = await conn.list_sessions(cwd=str(project))
        assert sid in [s.session_id for s in listed.sessions]
        loaded = await conn.load_session(cwd=str(project), session_id=sid, mcp_servers=[])
        assert loaded.modes.current_mode_id == "warn"
        replayed = client.of(sid)
        assert kinds(replayed)[:5] == [
            "user_message_chunk",
            "agent_message_chunk",
            "tool_call",
            "tool_call_update",
            "agent_message_chunk",
        ]
        assert replayed[0].content.text == "what do the notes say?"
        assert (replayed[2].tool_call_id, replayed[2].kind) == ("c1", "read")
        assert replayed[3].status == "completed" and "alpha" in replayed[3].content[0].content.text
        assert replayed[4].content.text == "It says alpha."


async def test_fork_makes_a_branch_with_its_own_worktree(tmp_path):
    repo = make_project(tmp_path / "repo")
    model = write_script(
        tmp_path,
        [
            {"text": "main answer"},
            {
                "tool_calls": [
                    {
                        "name": "write",
                        "arguments": {"path": "fork.txt", "content": "x\n"},
                        "id": "w",
                    }
                ]
            },
            {"text": "written in the fork"},
        ],
    )
    async with acp_workbench(repo, "--model", model) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(repo), mcp_servers=[])).session_id
        assert await ask(conn, sid, "hello") == "end_turn"
        fork = await conn.fork_session(session_id=sid, cwd=str(repo))
        stored, _, branch = sid.partition("@")
        assert branch == "main"
        assert fork.session_id == f"{stored}@fork-1"
        made = fork.field_meta["workbench.fork"]
        assert made["branch"] == "fork-1" and made["parent"] == "main"
        worktree = made["worktree"]
        assert worktree and worktree != str(repo)
        assert await ask(conn, fork.session_id, "write a file") == "end_turn"
        write = next(u for u in client.of(fork.session_id, "tool_call_update") if u.status)
        assert write.locations[0].path.startswith(worktree)
        assert next(c for c in write.content if c.type == "diff").old_text is None
        assert not (repo / "fork.txt").exists()

        tree = await ask(conn, sid, "/tree")
        assert tree == "end_turn"
        assert "fork-1" in client.text(sid)
        listed = await conn.list_sessions(cwd=str(repo))
        assert [s.session_id for s in listed.sessions] == [sid, fork.session_id]


async def test_slash_commands_are_advertised_and_answer_as_agent_messages(project):
    model = write_script(project, [{"text": "unused"}])
    async with acp_workbench(project, "--model", model) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        offered = await client.wait_for(lambda u: u.session_update == "available_commands_update")
        names = {c.name for c in offered.available_commands}
        assert {"tree", "fork", "status", "diff", "commit", "merge", "compact"} <= names
        assert "skill-graph-status" in names

        await conn.set_session_mode(session_id=sid, mode_id="block")
        assert await ask(conn, sid, "/skill-graph-status") == "end_turn"
        assert "enforcer mode: block" in client.text(sid)
        changed = client.of(sid, "current_mode_update")
        assert [u.current_mode_id for u in changed] == ["block"]

        assert await ask(conn, sid, "/merge") == "end_turn"
        assert "Error: /merge needs a branch" in client.text(sid)
        assert await ask(conn, sid, "/skill:no-such-skill") == "refusal"
        assert "/skill:no-such-skill refused" in client.text(sid)

        configured = await conn.set_config_option(config_id="model", session_id=sid, value="demo")
        assert configured.config_options[0].current_value == "demo"
        assert await ask(conn, sid, "/model") == "end_turn"
        assert "model: demo" in client.text(sid)


async def test_a_prompt_during_a_turn_steers_it_and_both_end_together(project):
    model = write_script(
        project,
        [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 1"}, "id": "c1"}]},
            {"text": "steered answer"},
        ],
    )
    async with acp_workbench(project, "--model", model) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        first = asyncio.create_task(conn.prompt(session_id=sid, prompt=prompt_blocks("go")))
        await client.wait_for(lambda u: u.session_update == "tool_call")
        second = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=prompt_blocks("use the other way")), TIMEOUT
        )
        assert second.stop_reason == "end_turn"
        assert (await asyncio.wait_for(first, TIMEOUT)).stop_reason == "end_turn"
        assert client.text(sid).endswith("steered answer")


async def test_a_reply_cut_at_the_output_limit_ends_with_max_tokens(project):
    model = write_script(project, [{"text": "half a", "finish": "length"}])
    async with acp_workbench(project, "--model", model) as (conn, _, _):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        assert await ask(conn, sid, "write a lot") == "max_tokens"


@pytest.mark.parametrize("unknown", ["nope", "nope@main"])
async def test_loading_an_unknown_session_is_an_error(project, unknown):
    model = write_script(project, [{"text": "unused"}])
    async with acp_workbench(project, "--model", model) as (conn, _, _):
        from acp import RequestError

        with pytest.raises(RequestError):
            await conn.load_session(cwd=str(project), session_id=unknown, mcp_servers=[])


async def test_loaded_skills_are_the_plan_and_each_load_shows_in_its_tool_call(project):
    write_tree(project / ".pi" / "skills")
    skill = ".pi/skills/{}/SKILL.md".format
    model = write_script(
        project,
        [
            {"tool_calls": [read_call(skill("publish-report"), "r1")]},
            {"tool_calls": [read_call(skill("gather-sources"), "r2")]},
            {"tool_calls": [read_call(skill("outline"), "r3")]},
            {"text": "done"},
            {"text": "following the skill"},
        ],
    )
    async with acp_workbench(project, "--model", model) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        assert await ask(conn, sid, "publish the report") == "end_turn"
        plans = [[(e.content, e.status) for e in u.entries] for u in client.of(sid, "plan")]
        assert plans[0] == [
            ("compound publish-report", "in_progress"),
            ("molecule gather-sources", "pending"),
            ("molecule write-draft", "pending"),
        ]
        assert plans[1] == [
            ("compound publish-report", "in_progress"),
            ("molecule gather-sources", "in_progress"),
            ("atom extract-text", "pending"),
            ("atom fetch-url", "pending"),
        ]
        ends = {u.tool_call_id: u for u in client.of(sid, "tool_call_update") if u.status}
        loads = {
            call: [c.content.text for c in ends[call].content if c.type == "content"][-1]
            for call in ("r1", "r2", "r3")
        }
        assert loads["r1"].startswith("Skill load: compound publish-report (ok")
        assert loads["r2"].startswith("Skill load: molecule gather-sources (ok, via publish-report")
        assert loads["r3"].startswith("Skill load: atom outline (violation")
        assert ends["r3"].raw_output["skill_loads"][0]["verdict"] == "violation"
        assert await ask(conn, sid, "/skill:fetch-url https://example.org") == "end_turn"
        assert "Skill load: atom fetch-url (ok" in client.text(sid)
        assert client.text(sid).endswith("following the skill")


async def test_confirmations_become_permission_requests_on_the_tool_call(project):
    runs = write_script(project.parent, [{"text": "reviewed"}])
    agents = project / ".pi" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(
        f"---\nname: reviewer\ndescription: a test agent\nmodel: {runs}\n---\nReview.\n"
    )
    review = {"agent": "reviewer", "task": "review", "scope": "project"}
    model = write_script(
        project,
        [
            {"tool_calls": [{"name": "subagent", "arguments": review, "id": "s1"}]},
            {"text": "refused, fine"},
            {"tool_calls": [{"name": "subagent", "arguments": review, "id": "s2"}]},
            {"text": "finished"},
        ],
    )
    async with acp_workbench(project, "--model", model) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        client.permission = "reject"
        assert await ask(conn, sid, "review it") == "end_turn"
        client.permission = "allow"
        assert await ask(conn, sid, "review it now") == "end_turn"
        asked = [(s, call.tool_call_id, call.title) for s, call, _ in client.permissions]
        assert asked == [(sid, "s1", "Run project agents?"), (sid, "s2", "Run project agents?")]
        assert [o.kind for o in client.permissions[0][2]] == ["allow_once", "reject_once"]
        ends = {u.tool_call_id: u for u in client.of(sid, "tool_call_update") if u.status}
        assert ends["s1"].status == "failed"
        assert "declined" in ends["s1"].content[0].content.text
        assert ends["s2"].status == "completed"


HELLO = """
def register(api):
    api.register_command("hello", lambda args: "hello from the extension", "say hello")
"""


async def test_a_project_waiting_for_trust_is_offered_it_before_the_first_run(project):
    extensions = project / ".pi" / "extensions"
    extensions.mkdir(parents=True)
    (extensions / "hello.py").write_text(HELLO)
    model = write_script(project, [{"text": "hi there"}])
    async with acp_workbench(project, "--model", model) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        assert await ask(conn, sid, "/hello") == "end_turn"  # unknown yet: a prompt
        [(_, question, options)] = client.permissions
        assert question.title == "Trust this project?"
        assert "extension hello.py" in question.content[0].content.text
        assert [o.kind for o in options] == ["allow_always", "reject_once"]
        offered = client.of(sid, "available_commands_update")[-1].available_commands
        assert "hello" in {c.name for c in offered}
        assert await ask(conn, sid, "/hello") == "end_turn"
        assert "hello from the extension" in client.text(sid)
        assert len(client.permissions) == 1


NOISY = """
import os

def register(api):
    print("stray print from an extension")
    os.system("echo stray output of a child process")
"""


async def test_stdout_carries_only_the_protocol(project):
    from workbench.config import agent_dir

    (agent_dir() / "extensions").mkdir(parents=True)
    (agent_dir() / "extensions" / "noisy.py").write_text(NOISY)
    model = write_script(project, [{"text": "still fine"}])
    async with acp_workbench(project, "--model", model) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        assert await ask(conn, sid, "hello") == "end_turn"
        assert client.text(sid) == "still fine"
    stderr = (project.parent / "acp-stderr.log").read_text()
    assert "stray print from an extension" in stderr
    assert "stray output of a child process" in stderr


async def test_sigterm_aborts_the_run_and_keeps_what_was_said(project):
    words = " ".join(f"word{n}" for n in range(200))
    model = write_script(project, [{"text": words, "delay_ms": 50}])
    async with acp_workbench(project, "--model", model) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        running = asyncio.create_task(conn.prompt(session_id=sid, prompt=prompt_blocks("talk")))
        await client.wait_for(lambda u: u.session_update == "agent_message_chunk")
        process = client.process
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), TIMEOUT) == 128 + signal.SIGTERM
        running.cancel()
        with contextlib.suppress(BaseException):
            await running
    async with acp_workbench(project, "--model", model) as (conn, client, _):
        await conn.load_session(cwd=str(project), session_id=sid, mcp_servers=[])
        assert client.text(sid, "user_message_chunk") == "talk"
        assert client.text(sid).startswith("word0")


async def test_approval_asks_the_editor_with_the_whole_files_diff(project):
    def edit(old: str, new: str, call_id: str) -> dict:
        arguments = {"path": "notes.txt", "old_text": old, "new_text": new}
        return {"name": "edit", "arguments": arguments, "id": call_id}

    (project / "notes.txt").write_text("one\ntwo\nthree\n")
    model = write_script(
        project,
        [
            {"tool_calls": [edit("two", "TWO", "e1")]},
            {"text": "left as it was"},
            {"tool_calls": [edit("two", "2", "e2")]},
            {"text": "changed"},
        ],
    )
    async with acp_workbench(project, "--model", model) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        assert await ask(conn, sid, "/approval edits") == "end_turn"
        assert "approval: edits" in client.text(sid)
        client.permission = "reject"
        assert await ask(conn, sid, "change it") == "end_turn"
        assert (project / "notes.txt").read_text() == "one\ntwo\nthree\n"
        client.permission = "always"
        assert await ask(conn, sid, "change it anyway") == "end_turn"
        assert (project / "notes.txt").read_text() == "one\n2\nthree\n"
        (_, call, options), _ = client.permissions
        assert call.tool_call_id == "e1" and call.title == "Edit notes.txt"
        diff = call.content[0]
        assert diff.type == "diff" and diff.path == str(project / "notes.txt")
        assert (diff.old_text, diff.new_text) == ("one\ntwo\nthree\n", "one\nTWO\nthree\n")
        assert [o.kind for o in options] == ["allow_once", "reject_once", "allow_always"]
        ends = {u.tool_call_id: u for u in client.of(sid, "tool_call_update") if u.status}
        assert ends["e1"].status == "failed"
        assert "the user refused this edit" in ends["e1"].content[-1].content.text
