"""Prompt caching measured: a scripted 10-turn session against the local Anthropic-format fake.

Run: `python tests/benchmarks/measure_cache.py [--no-cache] [--retention short|long]`

Opens a stored session in a throw-away git project with `anthropic/claude-sonnet-4-5` (litellm's
prices) pointed at `tests/support/anthropic_server.py`, whose simulated prompt cache
(`PromptCache`: Anthropic's rules, about four characters a token) reports the usage each request
would get. Turns 1-7 run on main, turn 8 forks `exp` (a worktree in another folder, so another
working folder after the cached system prompt) and turns 8-10 run there; odd turns read a file
first, so a turn is one or two requests. For each request it prints where the body asks for cache
breakpoints and the usage that came back; then what the footer shows (`Workbench.state()`: the
session's cost and tokens, the last call's and the session's hit rate), `/status` of the fork and
the commit trailers. With `--no-cache` it asks for no caching, for the comparison. Not part of the
test run; no network beyond loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
MODEL = "anthropic/claude-sonnet-4-5"
TURNS = 10
FORK_AT = 8


def _reply(body: dict):
    """Odd turns read `notes.txt` first, then answer; even turns answer at once."""
    from support.anthropic_server import AnthropicReply

    last = body["messages"][-1]
    content = last["content"]
    text = content if isinstance(content, str) else content[-1].get("text", "")
    if last["role"] == "user" and text.startswith("turn ") and int(text.split()[1].rstrip(":")) % 2:
        call = {"name": "read", "arguments": {"path": "notes.txt"}}
        return AnthropicReply(tool_calls=[call], usage={"output_tokens": 40})
    return AnthropicReply("Noted. " * 20, usage={"output_tokens": 60})


def _line(number: int, turn: int, branch: str, body: dict, usage: dict[str, int]) -> str:
    from support.anthropic_server import breakpoints

    marks = ", ".join(breakpoints(body)) or "none"
    prompt = sum(usage[k] for k in ("input", "read", "write"))
    rate = usage["read"] / prompt if prompt else 0.0
    return (
        f"{number:>3} {turn:>4} {branch:<5} {usage['input']:>6} {usage['read']:>6} "
        f"{usage['write']:>6} {usage['output']:>4} {rate:>5.0%}  {marks}"
    )


async def measure(no_cache: bool, retention: str, folder: Path) -> None:
    sys.path.insert(0, str(TESTS))
    from support.anthropic_server import AnthropicServer, PromptCache
    from support.git_project import make_project

    from workbench.runtime import Workbench, WorkbenchOptions

    agent_dir = folder / "agent"
    agent_dir.mkdir()
    os.environ["PI_CODING_AGENT_DIR"] = str(agent_dir)
    (agent_dir / "settings.json").write_text(f'{{"cache_retention": "{retention}"}}')
    project = make_project(folder / "project", {"notes.txt": "the notes\n" * 40})
    with AnthropicServer([_reply] * 40, cache=PromptCache()) as server:
        workbench = await Workbench.open(
            WorkbenchOptions(
                cwd=project, model=MODEL, api_base=server.url, api_key="fake", no_cache=no_cache
            )
        )
        usages: list[dict[str, int]] = []

        def on_event(event) -> None:
            if event.type == "usage_update":
                u = event.usage
                usages.append(
                    {
                        "input": u.input_tokens,
                        "read": u.cache_read_tokens,
                        "write": u.cache_write_tokens,
                        "output": u.output_tokens,
                    }
                )

        workbench.subscribe(on_event)
        print(f"{MODEL}, caching {'off' if no_cache else 'on'}, retention {retention}")
        print("req turn branch  input   read  write  out   hit  breakpoints")
        done = 0
        for turn in range(1, TURNS + 1):
            if turn == FORK_AT:
                await workbench.fork("exp")
                await workbench.workspace_ready()
            await workbench.prompt(f"turn {turn}: go on")
            await workbench.wait_idle()
            branch = workbench.state().branch
            for body, usage in zip(server.requests[done:], usages[done:], strict=True):
                done += 1
                print(_line(done, turn, branch, body, usage))
        state = workbench.state()
        status = await workbench.status()
        print()
        print("footer figures (Workbench.state()):")
        cost = "unknown" if state.total_cost is None else f"${state.total_cost:.4f}"
        print(f"  session cost {cost}")
        print(
            f"  tokens: {state.input_tokens:,} in / {state.output_tokens:,} out / "
            f"{state.cache_read_tokens:,} cache read / {state.cache_write_tokens:,} cache write"
        )
        last, whole = state.last_turn_hit_rate, state.session_hit_rate
        print(f"  hit rate: last call {last or 0:.0%}, session {whole or 0:.0%}")
        print(f"/status of {status.branch}: {status.usage.cost_text()} since the fork")
        for line in workbench.commit_trailers():
            print(f"  trailer  {line}")
        await workbench.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-cache", action="store_true", help="ask for no prompt caching")
    parser.add_argument(
        "--retention", choices=("short", "long"), default="short", help="cache_retention"
    )
    args = parser.parse_args()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ["WORKBENCH_WARM_START"] = "0"
    for key in ("ANTHROPIC_API_KEY", "WORKBENCH_MODEL"):
        os.environ.pop(key, None)
    with tempfile.TemporaryDirectory(prefix="measure-cache-") as folder:
        asyncio.run(measure(args.no_cache, args.retention, Path(folder)))


if __name__ == "__main__":
    main()
