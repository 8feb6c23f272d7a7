"""Which MCP servers a session starts, read from the files people already have.

Three sources, in the same shape (Claude Code's `.mcp.json`: `{"mcpServers": {NAME: {"command",
"args", "env"} | {"type": "http" | "sse", "url", "headers"}}}`): the project's `.mcp.json`, the
user's `~/.pi/agent/mcp.json` (and a file named with `--mcp-config`), and the servers an editor
sends in ACP `session/new`. A project's file is code that would run on the user's machine, so its
servers start only in a trusted project (`workbench.trust.trusted`); the others are the user's
own. `${VAR}` in `env`, `headers` and `url` expands from the environment; `mcp.disabled` in the
settings turns servers off by name. Nothing here imports the SDK.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from workbench.config import Settings, agent_dir

PROJECT_FILE = ".mcp.json"
USER_FILE = "mcp.json"
Transport = Literal["stdio", "http", "sse"]
Source = Literal["project", "user", "client"]
DEFAULT_TIMEOUT_S = 5.0
VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


@dataclass(frozen=True)
class ServerConfig:
    """One server: how to reach it and where its configuration came from."""

    name: str
    transport: Transport
    source: Source
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The server in the `.mcp.json` shape (what a child process is handed)."""
        if self.transport == "stdio":
            return {"command": self.command, "args": list(self.args), "env": dict(self.env)}
        return {"type": self.transport, "url": self.url, "headers": dict(self.headers)}


@dataclass
class McpSetup:
    """The servers to start, the project's servers withheld for want of trust, and problems in
    the files (each a sentence the user reads)."""

    servers: list[ServerConfig] = field(default_factory=list)
    untrusted: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    project_root: Path | None = None


def expand(text: str, env: Mapping[str, str]) -> str:
    """`${VAR}` (and `${VAR:-default}`) from `env`; an unset variable without a default is
    left as written, so the failure names it."""

    def value(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        return env.get(name, default if default is not None else match.group(0))

    return VARIABLE.sub(value, text)


def _strings(value: Any, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ValueError(f"`{what}` must map names to text")
    return {str(k): v for k, v in value.items()}


def parse_server(
    name: str, entry: Any, source: Source, env: Mapping[str, str] | None = None
) -> ServerConfig:
    """One `mcpServers` entry; ValueError says what is wrong with it."""
    env = os.environ if env is None else env
    if not isinstance(entry, dict):
        raise ValueError("must be an object with `command` or `url`")
    kind = entry.get("type") or ("stdio" if "command" in entry else "http")
    if kind == "streamable-http":
        kind = "http"
    if kind == "stdio":
        command, args = entry.get("command"), entry.get("args") or []
        if not isinstance(command, str) or not command.strip():
            raise ValueError("a stdio server needs a `command`")
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise ValueError("`args` must be a list of text")
        variables = {k: expand(v, env) for k, v in _strings(entry.get("env"), "env").items()}
        cwd = entry.get("cwd")
        return ServerConfig(
            name, "stdio", source, command, tuple(args), variables, cwd=cwd if cwd else None
        )
    if kind not in ("http", "sse"):
        raise ValueError(f"`type` is stdio, http or sse, not {kind!r}")
    url = entry.get("url")
    if not isinstance(url, str) or not url.strip():
        raise ValueError(f"an {kind} server needs a `url`")
    headers = {k: expand(v, env) for k, v in _strings(entry.get("headers"), "headers").items()}
    transport: Transport = "http" if kind == "http" else "sse"
    return ServerConfig(name, transport, source, url=expand(url, env), headers=headers)


def _entries(path: Path) -> dict[str, Any] | str | None:
    """A file's `mcpServers` object, None when there is no file, or what is wrong with it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        return f"{path}: not readable JSON ({exc})"
    entries = data.get("mcpServers") if isinstance(data, dict) else None
    return entries if isinstance(entries, dict) else f"{path}: no `mcpServers` object"


def read_servers(path: Path, source: Source, setup: McpSetup) -> list[ServerConfig]:
    """The servers of one `mcpServers` file (none when it is absent); problems go to `setup`."""
    entries = _entries(path)
    if isinstance(entries, str):
        setup.problems.append(entries)
    return _parsed(entries, source, str(path), setup) if isinstance(entries, dict) else []


def file_servers(path: Path) -> dict[str, Any]:
    """A file's `mcpServers` entries as written (none when it cannot be read): what a child
    process is handed, to read and expand itself."""
    entries = _entries(path)
    return entries if isinstance(entries, dict) else {}


def _parsed(
    entries: dict[str, Any], source: Source, where: str, setup: McpSetup
) -> list[ServerConfig]:
    found = []
    for name, entry in entries.items():
        try:
            found.append(parse_server(str(name), entry, source))
        except ValueError as exc:
            setup.problems.append(f"{where}: server {name!r} {exc}")
    return found


def client_servers(servers: list[dict[str, Any]]) -> dict[str, Any]:
    """An ACP client's `mcpServers` (a list of `{name, command, args, env: [{name, value}]}` or
    `{type, name, url, headers: [{name, value}]}`) in the `.mcp.json` shape."""
    entries: dict[str, Any] = {}
    for server in servers:
        entry = {k: v for k, v in server.items() if k not in ("name", "env", "headers")}
        for key in ("env", "headers"):
            pairs = server.get(key) or []
            entry[key] = {p["name"]: p["value"] for p in pairs if isinstance(p, dict)}
        entries[str(server.get("name", "?"))] = entry
    return entries


def load_setup(
    project_root: Path,
    settings: Settings,
    trusted: bool,
    client: Mapping[str, Any] | None = None,
    config_file: Path | None = None,
) -> McpSetup:
    """Every server this session may start: the user's, the project's when `trusted`, the
    client's (`client`, `.mcp.json` shaped) and `config_file`'s; later sources win a name. The
    `mcp.disabled` setting removes servers by name."""
    setup = McpSetup(project_root=project_root)
    project = read_servers(project_root / PROJECT_FILE, "project", setup)
    if not trusted:
        setup.untrusted = [server.name for server in project]
        project = []
    named: dict[str, ServerConfig] = {}
    sources = [read_servers(agent_dir() / USER_FILE, "user", setup), project]
    if config_file is not None:
        sources.append(read_servers(config_file, "user", setup))
    if client:
        sources.append(_parsed(dict(client), "client", "the editor's servers", setup))
    for servers in sources:
        named.update((server.name, server) for server in servers)
    disabled = settings.get("mcp.disabled", [])
    off = {n for n in disabled if isinstance(n, str)} if isinstance(disabled, list) else set()
    setup.servers = [server for name, server in named.items() if name not in off]
    setup.untrusted = [name for name in setup.untrusted if name not in off]
    return setup


def start_timeout(settings: Settings) -> float:
    """How long a session waits for its servers at start (`mcp.timeout`, seconds)."""
    value = settings.get("mcp.timeout", DEFAULT_TIMEOUT_S)
    ok = isinstance(value, int | float) and not isinstance(value, bool) and value > 0
    return float(value) if ok else DEFAULT_TIMEOUT_S
