"""workbench side by side with pi, in one interleaved batch (a script, not part of the test run).

    python tests/benchmarks/bench_vs_pi.py --pi /work/pi/packages/coding-agent/dist/cli.js
        [--runs N] [--skills N] [--format table|json] [--only GROUP,...] [--no-compile]

pi is built from source (docs/speed.md says how) and run as `node CLI_JS` with `PI_OFFLINE=1`
and a HOME of its own whose `~/.pi/agent/models.json` names the local OpenAI-compatible server
(tests/support/openai_server.py) as provider `local`; workbench reaches the same server through
litellm (`--model openai/bench --api-base URL`), with a HOME of its own. Both run in the same
project, answering the same scripted turn: read `notes.txt`, then answer.

Each of the N rounds runs every measurement for workbench and then for pi, back to back:
1. `--version`, whole process;
2. `-p` of the turn, whole process: workbench without the warm interpreter
   (`WORKBENCH_WARM_START=0`), the first run after the warm interpreter exited (the run that
   starts it; pi's run waits until it serves, so that it warms up on no one's clock), and
   through the warm interpreter; pi's `-p` beside each (pi has no warm mode);
3. from spawn to the first request at the server (cold and warm pairs);
4. from the end of the reply asking for the read to the request bringing the result (the agent
   reads the last chunk, runs the tool, stores the result and builds the next request), in the
   warm pair;
5. `-p` of the turn in a copy of the project holding `--skills` skills (default 5,000, same
   files for both) in `.pi/skills`, workbench warm, and the size of each system prompt;
6. workbench only: the venv's bare `python -c pass`, and an editor's ACP session
   (tests/benchmarks/bench_acp.py): spawn to `initialize`, `session/new`, prompt to request,
   cold and warm.

workbench's own bytecode is compiled first (`compileall`, into the package's `__pycache__`), as
an installed workbench has it: `pip install` compiles it, and an editable install's first run
writes it, unless `PYTHONDONTWRITEBYTECODE` is set, as it is on some machines (then every run
compiles the package again: about 0.3 s of CPU here). `--no-compile` measures without it.

`--only` keeps some of the measurements (the venv's `python -c pass` always runs): `version`
(1), `cold` (2 and 3 without the warm interpreter, and the first run after it exited), `warm`
(2-4 through it), `skills` (5), `acp` (6).

Prints the medians and workbench/pi (below 1: workbench is faster), or JSON with every run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_acp import one_run as acp_session
from process_turns import TimedServer, Turn, project, read_then_answer, timed_run, unlayered_specs
from support.skill_trees import write_skill

from workbench.processes import forkserver
from workbench.processes.forkserver import WARM_UP

WORKBENCH = str(Path(sys.executable).with_name("workbench"))
PROMPT = "what is in notes.txt?"
ACP_COLUMNS = ("initialize", "session/new", "prompt -> request")
GROUPS = ("version", "cold", "warm", "skills", "acp")
SPARE_READY_S = 1.0
"""Ample for the warm server's spare child to get ready after a run, on a loaded machine."""


@dataclass
class Row:
    """One line of the table: seconds (or bytes) per run for each agent."""

    what: str
    workbench: list[float] = field(default_factory=list)
    pi: list[float] = field(default_factory=list)
    unit: str = "s"

    def as_dict(self) -> dict[str, Any]:
        wb, pi = _median(self.workbench), _median(self.pi)
        ratio = wb / pi if wb is not None and pi else None
        return {
            "what": self.what,
            "unit": self.unit,
            "workbench": wb,
            "pi": pi,
            "workbench_per_pi": ratio,
            "workbench_runs": self.workbench,
            "pi_runs": self.pi,
        }


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


class Agents:
    """The two command lines and environments, pointed at one server and one project."""

    def __init__(self, scratch: Path, server: TimedServer, pi_cli: Path) -> None:
        base = {k: v for k, v in os.environ.items() if k != "PI_CODING_AGENT_DIR"}
        pi_home = scratch / "pi-home"
        (pi_home / ".pi" / "agent").mkdir(parents=True)
        local = {
            "baseUrl": server.url,
            "api": "openai-completions",
            "apiKey": "k",
            "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
            "models": [{"id": "bench"}],
        }
        models = pi_home / ".pi" / "agent" / "models.json"
        models.write_text(json.dumps({"providers": {"local": local}}))
        self.pi_env = {**base, "HOME": str(pi_home), "PI_OFFLINE": "1"}
        self.pi = ["node", str(pi_cli)]
        self.pi_turn = [*self.pi, "-p", "--provider", "local", "--model", "bench", PROMPT]
        wb_home = scratch / "wb-home"
        wb_home.mkdir()
        self.wb_env = {**base, "HOME": str(wb_home), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        model = ["--model", "openai/bench", "--api-base", server.url, "--api-key", "k"]
        self.wb_turn = [WORKBENCH, "-p", *model, PROMPT]

    def wb(self, warm: bool) -> dict[str, str]:
        return {**self.wb_env, "WORKBENCH_WARM_START": "1" if warm else "0"}

    def _warm_env(self) -> tuple[dict[str, str], dict[str, str]]:
        """The runs' environment, and what finds their warm server from this process (its agent
        folder, not this process's)."""
        env = self.wb(warm=True)
        return env, {"PI_CODING_AGENT_DIR": str(Path(env["HOME"]) / ".pi" / "agent")}

    def stop_warm(self) -> bool:
        """Whether a warm server ran."""
        env, here = self._warm_env()
        with mock.patch.dict(os.environ, here):
            return forkserver.stop(WARM_UP, env)

    def await_warm(self) -> None:
        """Wait until the warm server a run started (without waiting for it) serves, so that it
        warms up on no one's clock (pi's next run's included)."""
        env, here = self._warm_env()
        with mock.patch.dict(os.environ, here):
            if not forkserver.wait_serving(WARM_UP, env, timeout_s=120):
                raise SystemExit("the warm interpreter did not come up")

    @staticmethod
    def spare_ready() -> None:
        """Wait while the warm server forks the next run's child after a warm run and that child
        calls litellm's loopback stub (about 40 ms of CPU), so that it is done on no one's clock
        (pi's next run's included)."""
        time.sleep(SPARE_READY_S)


def skills_project(scratch: Path, skills: int) -> Path:
    folder = project(scratch / "skills-project")
    for name, spec in unlayered_specs(skills).items():
        write_skill(folder / ".pi" / "skills", name, spec)
    return folder


class Batch:
    """The rows, filled round by round."""

    def __init__(
        self,
        scratch: Path,
        server: TimedServer,
        agents: Agents,
        skills: int,
        groups: tuple[str, ...] = GROUPS,
    ) -> None:
        self.scratch, self.server, self.agents, self.groups = scratch, server, agents, groups
        self.cwd = project(scratch / "project")
        self.skills = skills_project(scratch, skills if "skills" in groups else 0)
        self.many = f"-p warm, {skills:,} skills"
        names = [
            "--version",
            "-p cold (WORKBENCH_WARM_START=0)",
            "-p, first run after the warm interpreter exited",
            "-p warm",
            "spawn -> first request, cold",
            "spawn -> first request, warm",
            "tool result -> next request (warm)",
            self.many,
            "system prompt at those skills",
            "python -c pass (the venv's)",
            *(f"ACP {what}, cold" for what in ACP_COLUMNS),
            *(f"ACP {what}, warm" for what in ACP_COLUMNS),
        ]
        self.rows = {name: Row(name) for name in names}
        self.rows["system prompt at those skills"].unit = "bytes"

    def add(self, name: str, workbench: float | None = None, pi: float | None = None) -> None:
        if workbench is not None:
            self.rows[name].workbench.append(workbench)
        if pi is not None:
            self.rows[name].pi.append(pi)

    def turns(
        self, env: dict[str, str], cwd: Path, between: Callable[[], None] | None = None
    ) -> tuple[Turn, Turn]:
        """The turn by workbench, then (after `between`, untimed) by pi."""
        agents = self.agents
        wb = read_then_answer(self.server, agents.wb_turn, cwd, env)
        if between is not None:
            between()
        return wb, read_then_answer(self.server, agents.pi_turn, cwd, agents.pi_env)

    def round(self) -> None:
        agents, add, groups = self.agents, self.add, self.groups
        wb = agents.wb(warm=False)
        if "version" in groups:
            add(
                "--version",
                timed_run([WORKBENCH, "--version"], self.cwd, wb),
                timed_run([*agents.pi, "--version"], self.cwd, agents.pi_env),
            )
        add(
            "python -c pass (the venv's)",
            timed_run([sys.executable, "-c", "pass"], self.cwd, wb, answers=False),
        )
        if "cold" in groups:
            if not agents.stop_warm() and self.rows["-p warm"].workbench:
                raise SystemExit("the warm interpreter of the last round was not found to stop")
            cold = self.turns(wb, self.cwd)
            add("-p cold (WORKBENCH_WARM_START=0)", cold[0].total, cold[1].total)
            add("spawn -> first request, cold", cold[0].first_request, cold[1].first_request)
            first = self.turns(agents.wb(warm=True), self.cwd, agents.await_warm)
            add("-p, first run after the warm interpreter exited", first[0].total, first[1].total)
        if "cold" not in groups and {"warm", "skills"} & set(groups):
            self.turns(agents.wb(warm=True), self.cwd, agents.await_warm)  # untimed: it is up
        if "warm" in groups:
            warm = self.turns(agents.wb(warm=True), self.cwd, agents.spare_ready)
            add("-p warm", warm[0].total, warm[1].total)
            add("spawn -> first request, warm", warm[0].first_request, warm[1].first_request)
            tool = (warm[0].tool_to_request, warm[1].tool_to_request)
            add("tool result -> next request (warm)", *tool)
        if "skills" in groups:
            many = self.turns(agents.wb(warm=True), self.skills, agents.spare_ready)
            add(self.many, many[0].total, many[1].total)
            add("system prompt at those skills", many[0].system_bytes, many[1].system_bytes)
        if "acp" in groups:
            for mode, warmed in (("warm", True), ("cold", False)):
                times = acp_session(self.scratch, self.server, agents.wb(warm=warmed))
                for what, ms in zip(ACP_COLUMNS, times, strict=True):
                    add(f"ACP {what}, {mode}", ms / 1000)


def warm_up(batch: Batch) -> None:
    """One untimed pass (files in the disk cache, workbench's skill parse cache filled)."""
    batch.turns(batch.agents.wb(warm=False), batch.cwd)
    batch.turns(batch.agents.wb(warm=False), batch.skills)


def table(result: dict[str, Any]) -> str:
    def shown(value: float | None, unit: str) -> str:
        if value is None:
            return "-"
        return f"{value:,.0f} B" if unit == "bytes" else f"{value * 1000:,.0f} ms"

    lines = [
        f"| measurement (medians of {result['runs']}) | workbench | pi | workbench/pi |",
        "| --- | --- | --- | --- |",
    ]
    for row in result["rows"]:
        if row["workbench"] is None and row["pi"] is None:
            continue  # not measured (`--only`)
        ratio = row["workbench_per_pi"]
        lines.append(
            f"| {row['what']} | {shown(row['workbench'], row['unit'])} | "
            f"{shown(row['pi'], row['unit'])} | {'-' if ratio is None else f'{ratio:.2f}'} |"
        )
    python = next(r for r in result["rows"] if r["what"].startswith("python -c"))["workbench"]
    cold = next(r for r in result["rows"] if r["what"].startswith("-p cold"))
    if cold["workbench"] is not None:
        lines.append(
            f"\ncold -p / python -c pass: workbench {cold['workbench'] / python:.0f}x, "
            f"pi {cold['pi'] / python:.0f}x"
        )
    lines.append(f"pi {result['pi_version']}; load average {result['load_average']}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.splitlines()[1:]),
    )
    parser.add_argument("--pi", type=Path, required=True, help="pi's built cli.js")
    parser.add_argument("--runs", type=int, default=5, help="rounds (default: 5)")
    parser.add_argument("--skills", type=int, default=5000, help="skills (default: 5000)")
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.add_argument(
        "--only",
        type=_groups,
        default=GROUPS,
        metavar="GROUP,...",
        help=f"measure only these ({', '.join(GROUPS)}; default: all)",
    )
    parser.add_argument(
        "--no-compile",
        action="store_true",
        help="leave workbench's bytecode as it is (default: compile it first, as pip does)",
    )
    args = parser.parse_args()
    if not args.no_compile:
        package = Path(forkserver.__file__).parents[1]
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True)
    result = measure(
        args.pi.resolve(),
        args.runs,
        args.skills,
        lambda text: print(text, file=sys.stderr, flush=True),
        args.only,
    )
    print(json.dumps(result, indent=2) if args.format == "json" else table(result))


def _groups(text: str) -> tuple[str, ...]:
    groups = tuple(g.strip() for g in text.split(",") if g.strip())
    if not groups or set(groups) - set(GROUPS):
        raise argparse.ArgumentTypeError(f"choose among {', '.join(GROUPS)}")
    return groups


def measure(
    pi_cli: Path,
    runs: int,
    skills: int,
    progress: Callable[[str], None],
    groups: tuple[str, ...] = GROUPS,
) -> dict[str, Any]:
    version = subprocess.run(["node", str(pi_cli), "--version"], capture_output=True, text=True)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="wb-vs-pi-") as folder, TimedServer() as server:
        agents = Agents(Path(folder), server, pi_cli)
        batch = Batch(Path(folder), server, agents, skills, groups)
        try:
            warm_up(batch)
            for number in range(runs):
                started = time.perf_counter()
                batch.round()
                progress(
                    f"round {number + 1}/{runs}: {time.perf_counter() - started:.0f} s, "
                    f"load average {os.getloadavg()[0]:.1f}"
                )
        finally:
            agents.stop_warm()
    return {
        "runs": runs,
        "groups": list(groups),
        "pi_version": version.stdout.strip(),
        "load_average": f"{load_before[0]:.1f} before, {os.getloadavg()[0]:.1f} after",
        "rows": [row.as_dict() for row in batch.rows.values()],
    }


if __name__ == "__main__":
    main()
