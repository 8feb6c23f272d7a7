"""An opened `Workbench` with every event it sent, and the scripted models and tool calls that
drive it in the wiring tests."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.runtime import Workbench


@dataclass
class Opened:
    """An open workbench and every event it published since it was opened."""

    wb: Workbench
    events: list[Any]

    def of(self, type_: str) -> list[Any]:
        return [e for e in self.events if getattr(e, "type", None) == type_]

    async def run(self, text: str) -> str | None:
        await self.wb.prompt(text)
        return await self.wb.wait_idle()


def script(folder: Path, turns: list[dict[str, Any]], summaries: list[str] = ()) -> str:
    """A `scripted:` model string playing `turns` (and answering side requests with
    `summaries`), stored outside the project so it never shows in its files."""
    path = folder / f"script-{len(list(folder.glob('script-*.json')))}.json"
    path.write_text(json.dumps({"turns": turns, "summaries": list(summaries)}), encoding="utf-8")
    return f"scripted:{path}"


def write(path: str, content: str) -> dict[str, Any]:
    return {
        "text": f"writing {path}",
        "tool_calls": [{"name": "write", "arguments": {"path": path, "content": content}}],
    }


def read(path: str) -> dict[str, Any]:
    return {
        "text": f"reading {path}",
        "tool_calls": [{"name": "read", "arguments": {"path": path}}],
    }


def bash(command: str) -> dict[str, Any]:
    return {"text": "running", "tool_calls": [{"name": "bash", "arguments": {"command": command}}]}


def texts(workbench: Workbench, role: str) -> list[str]:
    return [m.text for m in workbench.messages() if m.role == role]
