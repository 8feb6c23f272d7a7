"""Test-wide guards: no network but loopback (in every process a test starts), no real user
settings, no provider keys."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import netguard

from workbench.sandbox.choice import NETWORK_TOLD

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
SITE = Path(__file__).resolve().parent / "support" / "netguard_site"
_blocked: list[str] = []


def _xdist_worker() -> bool:
    """A pytest-xdist worker: it inherits the controller's environment, the netguard log too."""
    return "PYTEST_XDIST_WORKER" in os.environ


def pytest_configure(config: pytest.Config) -> None:
    if _xdist_worker():  # the controller reads the one log when the whole run ends
        netguard.install(netguard.log_to_file())
    else:
        netguard.install(_blocked.append)
        handle, log = tempfile.mkstemp(prefix="workbench-netguard-", suffix=".log")
        os.close(handle)
        os.environ[netguard.LOG_VARIABLE] = log
    os.environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(SITE), os.environ.get("PYTHONPATH")])
    )
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    os.environ["WORKBENCH_WARM_START"] = "0"  # no background warm servers outliving a test
    os.environ["WORKBENCH_DEMO_PACE"] = "0"  # the demo model answers at once in tests
    for var in PROVIDER_KEY_VARS:
        os.environ.pop(var, None)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _xdist_worker():
        return
    log = Path(os.environ[netguard.LOG_VARIABLE])
    attempts = [*_blocked, *log.read_text(encoding="utf-8").splitlines()]
    log.unlink(missing_ok=True)
    if attempts:
        session.exitstatus = 1
        print(f"\nnon-loopback network access was attempted: {sorted(set(attempts))}")


@pytest.fixture(autouse=True)
def isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Each test gets its own empty home and `~/.pi/agent`, so real user settings never leak in."""
    home = tmp_path_factory.mktemp("home")
    saved = {k: os.environ.get(k) for k in ("HOME", "PI_CODING_AGENT_DIR")}
    os.environ["HOME"] = str(home)
    os.environ["PI_CODING_AGENT_DIR"] = str(home / ".pi" / "agent")
    # a user who has read the sandbox's one-time network notice (its own test reads it afresh)
    (home / ".pi" / "agent").mkdir(parents=True)
    (home / ".pi" / "agent" / NETWORK_TOLD).touch()
    try:
        yield home
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
