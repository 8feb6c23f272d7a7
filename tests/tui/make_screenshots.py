"""Draw docs/screenshots/*.svg from the scripted states the snapshot tests check.

    python tests/tui/make_screenshots.py [NAME ...]

Each picture runs the real app on a fresh copy of the example project, in a clean home folder
(no user settings or skills leak in), with a scripted, demo or local-server model.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


async def _picture(name: str, project: Path, stack: ExitStack) -> str:
    from support.app_pilot import PICTURE_SIZE, build_app
    from support.app_scenarios import SCENARIOS

    scenario = SCENARIOS[name]
    app = build_app(project, **scenario.options(project, stack))
    async with app.run_test(size=PICTURE_SIZE) as pilot:
        await scenario.drive(pilot)
        await pilot.pause(0.2)
        return app.export_screenshot(title=f"workbench · {scenario.caption}")


def main() -> None:
    with tempfile.TemporaryDirectory() as home:
        os.environ.update(
            HOME=home,
            PI_CODING_AGENT_DIR=str(Path(home) / ".pi" / "agent"),
            LITELLM_LOCAL_MODEL_COST_MAP="True",
        )
        for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "WORKBENCH_MODEL"):
            os.environ.pop(key, None)
        from support.app_pilot import ROOT, make_project
        from support.app_scenarios import SCENARIOS

        out = ROOT / "docs" / "screenshots"
        out.mkdir(exist_ok=True)
        for name in sys.argv[1:] or list(SCENARIOS):
            with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
                project = make_project(Path(folder) / "project")
                svg = asyncio.run(_picture(name, project, stack))
            (out / f"{name}.svg").write_text(svg, encoding="utf-8", newline="\n")
            print(f"docs/screenshots/{name}.svg")


if __name__ == "__main__":
    main()
