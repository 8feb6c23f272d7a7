"""Reading which MCP servers a session starts: the `.mcp.json` shape, `${VAR}`, trust, the
editor's list and `mcp.disabled`."""

from __future__ import annotations

import json
from pathlib import Path

from workbench.config import Settings, agent_dir
from workbench.mcp.config import client_servers, expand, load_setup, parse_server


def write(path: Path, servers: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")


def settings(project: Path, **data: object) -> Settings:
    loaded = Settings.load(project, trusted=False)
    loaded.data.update(data)
    return loaded


def test_variables_expand_in_env_headers_and_url_and_unset_ones_stay_visible() -> None:
    env = {"TOKEN": "s3cret", "HOST": "example.test"}
    stdio = parse_server("a", {"command": "srv", "env": {"KEY": "${TOKEN}"}}, "user", env)
    http = parse_server(
        "b",
        {"type": "http", "url": "https://${HOST}/mcp", "headers": {"Auth": "Bearer ${TOKEN}"}},
        "user",
        env,
    )
    assert stdio.env == {"KEY": "s3cret"}
    assert (http.url, dict(http.headers)) == ("https://example.test/mcp", {"Auth": "Bearer s3cret"})
    assert expand("${MISSING}", env) == "${MISSING}"
    assert expand("${MISSING:-fallback}", env) == "fallback"


def test_a_project_file_waits_for_trust_and_the_users_does_not(tmp_path: Path) -> None:
    project = tmp_path / "project"
    write(project / ".mcp.json", {"proj": {"command": "p"}})
    write(agent_dir() / "mcp.json", {"mine": {"type": "sse", "url": "http://127.0.0.1:1/sse"}})

    untrusted = load_setup(project, settings(project), trusted=False)
    trusted = load_setup(project, settings(project), trusted=True)

    assert [s.name for s in untrusted.servers] == ["mine"] and untrusted.untrusted == ["proj"]
    assert [(s.name, s.source) for s in trusted.servers] == [("mine", "user"), ("proj", "project")]


def test_disabled_servers_and_broken_entries(tmp_path: Path) -> None:
    write(
        agent_dir() / "mcp.json",
        {
            "off": {"command": "x"},
            "bad": {"type": "websocket", "url": "ws://x"},
            "ok": {"url": "u"},
        },
    )
    setup = load_setup(tmp_path, settings(tmp_path, mcp={"disabled": ["off"]}), trusted=False)
    assert [s.name for s in setup.servers] == ["ok"]
    assert setup.servers[0].transport == "http"
    assert any("'bad'" in p and "stdio, http or sse" in p for p in setup.problems)


def test_an_editors_servers_take_the_mcp_json_shape(tmp_path: Path) -> None:
    sent = [
        {"name": "ed", "command": "srv", "args": ["-v"], "env": [{"name": "K", "value": "v"}]},
        {
            "type": "http",
            "name": "web",
            "url": "http://h/mcp",
            "headers": [{"name": "A", "value": "b"}],
        },
    ]
    setup = load_setup(tmp_path, settings(tmp_path), False, client=client_servers(sent))
    ed, web = setup.servers
    assert (ed.command, ed.args, dict(ed.env), ed.source) == ("srv", ("-v",), {"K": "v"}, "client")
    assert (web.transport, dict(web.headers)) == ("http", {"A": "b"})
