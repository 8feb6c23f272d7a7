"""An editor's first second with `workbench --mode acp`: spawn to `initialize`, `session/new`,
and a prompt to the model's first request.

Run: `python tests/benchmarks/bench_acp.py [--runs N] [--warm]`

Each run spawns the agent the way an editor does and speaks JSON-RPC to it over its stdio by hand
(no SDK on the client side, so the client costs nothing), in a fresh git project, with the model
`openai/bench` served by the local SSE server (tests/support/openai_server.py). Timed: spawn to the
`initialize` answer, `session/new` sent to answered, and `session/prompt` sent to the request
arriving at the server. Cold by default (`WORKBENCH_WARM_START=0`); `--warm` runs through the warm
interpreter (a `-p` run starts it beforehand, as a user's earlier run would have). Goals:
initialize < 300 ms, session/new < 1 s cold and < 300 ms warm, prompt to request < 100 ms.
Prints each run and the medians, in milliseconds.
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
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.openai_server import OpenAIServer, Reply

from workbench.processes import forkserver

WORKBENCH = Path(sys.executable).with_name("workbench")


class Agent:
    """One spawned agent and the JSON-RPC lines it writes."""

    def __init__(self, cwd: Path, url: str, env: dict[str, str]) -> None:
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            [str(WORKBENCH), "--mode", "acp", "--model", "openai/bench", "--api-base", url],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.next_id = 0

    def send(self, method: str, params: dict[str, Any]) -> int:
        self.next_id += 1
        line = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(line).encode() + b"\n")
        self.process.stdin.flush()
        return self.next_id

    def answer(self, wanted: int) -> dict[str, Any]:
        assert self.process.stdout is not None
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("the agent closed its stdout")
            message = json.loads(line)
            if message.get("id") == wanted and "method" not in message:
                if "error" in message:
                    raise RuntimeError(message["error"])
                return message

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


def one_run(folder: Path, server: OpenAIServer, env: dict[str, str]) -> tuple[float, ...]:
    project = Path(tempfile.mkdtemp(dir=folder))
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    server.add(Reply(text="hello there"))
    agent = Agent(project, server.url, env)
    try:
        agent.answer(agent.send("initialize", {"protocolVersion": 1}))
        initialized = time.perf_counter()
        sent = time.perf_counter()
        new = agent.answer(agent.send("session/new", {"cwd": str(project), "mcpServers": []}))
        opened = time.perf_counter()
        session = new["result"]["sessionId"]
        before = len(server.requests)
        asked = time.perf_counter()
        prompt = agent.send(
            "session/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}
        )
        while len(server.requests) == before:
            time.sleep(0.001)
        requested = time.perf_counter()
        agent.answer(prompt)
    finally:
        agent.close()
    return (
        (initialized - agent.started) * 1000,
        (opened - sent) * 1000,
        (requested - asked) * 1000,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="agents to spawn (default: 5)")
    parser.add_argument("--warm", action="store_true", help="through the warm interpreter")
    args = parser.parse_args()
    env = {**os.environ, "WORKBENCH_WARM_START": "1" if args.warm else "0"}
    rows: list[tuple[float, ...]] = []
    with tempfile.TemporaryDirectory() as folder, OpenAIServer() as server:
        os.environ["HOME"] = env["HOME"] = folder  # no settings, sessions or skills of the user
        env.pop("PI_CODING_AGENT_DIR", None)
        os.environ.pop("PI_CODING_AGENT_DIR", None)
        if args.warm:  # a run that starts the warm interpreter, which we wait for
            server.add(Reply(text="warm"))
            command = [str(WORKBENCH), "-p", "--model", "openai/bench", "--api-base", server.url]
            subprocess.run([*command, "hi"], cwd=folder, env=env, check=True, capture_output=True)
            forkserver.wait_serving(forkserver.WARM_UP, env)  # the run did not wait for it
        print(f"{'run':>4}  {'initialize':>11}  {'session/new':>12}  {'prompt->request':>16}")
        for run in range(args.runs):
            rows.append(one_run(Path(folder), server, env))
            init, new, first = rows[-1]
            print(f"{run + 1:>4}  {init:>9.0f}ms  {new:>10.0f}ms  {first:>14.0f}ms")
        if args.warm:
            forkserver.stop(forkserver.WARM_UP, env)
    medians = [statistics.median(column) for column in zip(*rows, strict=True)]
    print(f"{'med':>4}  {medians[0]:>9.0f}ms  {medians[1]:>10.0f}ms  {medians[2]:>14.0f}ms")


if __name__ == "__main__":
    main()
