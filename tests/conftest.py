"""Test-wide guards: no network but loopback, no real user settings, no provider keys."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

PROVIDER_KEY_VARS = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "MISTRAL_API_KEY",
    "GROQ_API_KEY",
    "OPENROUTER_API_KEY",
    "DEEPSEEK_API_KEY",
    "XAI_API_KEY",
    "AZURE_API_KEY",
    "WORKBENCH_MODEL",
)

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_blocked: list[str] = []


def _is_loopback(address: object) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return True
    host = address[0] if isinstance(address, tuple) else address
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


def _guarded(real: Callable[[socket.socket, object], Any]) -> Callable[..., Any]:
    def connect(self: socket.socket, address: object) -> Any:
        if not _is_loopback(address):
            _blocked.append(repr(address))
            raise ConnectionRefusedError(f"test guard: non-loopback connection to {address!r}")
        return real(self, address)

    return connect


def pytest_configure(config: pytest.Config) -> None:
    socket.socket.connect = _guarded(_real_connect)  # type: ignore[method-assign]
    socket.socket.connect_ex = _guarded(_real_connect_ex)  # type: ignore[method-assign]
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    os.environ["WORKBENCH_WARM_START"] = "0"  # no background warm servers outliving a test
    for var in PROVIDER_KEY_VARS:
        os.environ.pop(var, None)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _blocked:
        session.exitstatus = 1
        print(f"\nnon-loopback connections were attempted: {sorted(set(_blocked))}")


@pytest.fixture(autouse=True)
def isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Each test gets its own empty home and `~/.pi/agent`, so real user settings never leak in."""
    home = tmp_path_factory.mktemp("home")
    saved = {k: os.environ.get(k) for k in ("HOME", "PI_CODING_AGENT_DIR")}
    os.environ["HOME"] = str(home)
    os.environ["PI_CODING_AGENT_DIR"] = str(home / ".pi" / "agent")
    try:
        yield home
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
