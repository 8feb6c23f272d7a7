"""A project whose one skill has one eval case, and the local model server's answers for its
runs: with the skill offered in its system prompt the agent reads it and writes 42 (what the
skill says) to `answer.txt`, without it it guesses 41; the grader (a model named `grader`)
passes an answer of 42. So `with_skill` passes and `without_skill` fails, whatever runs them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.git_project import make_project
from support.openai_server import Reply

USAGE = {"prompt_tokens": 120, "completion_tokens": 30}
SKILL = "compound-answer"
FOLDER = f".pi/skills/{SKILL}"
CASE = {
    "id": "the-answer",
    "prompt": "What is the answer? Write it to answer.txt.",
    "expected_output": "42",
    "files": ["evals/files/hint.txt"],
    "assertions": ["The answer says 42."],
    "checks": ["grep -qx 42 answer.txt", "test -f hint.txt"],
}


def eval_project(root: Path) -> Path:
    """A git project with the skill, its case and the case's file, committed."""
    return make_project(
        root,
        {
            f"{FOLDER}/SKILL.md": f"---\nname: {SKILL}\ndescription: The answer to the question. "
            "Use it when asked for the answer.\nmetadata:\n  layer: compound\n---\n\n"
            "The answer is 42.\n",
            f"{FOLDER}/evals/evals.json": json.dumps({"skill_name": SKILL, "evals": [CASE]}),
            f"{FOLDER}/evals/files/hint.txt": "think\n",
        },
    )


def answering(body: dict[str, Any]) -> Reply:
    """One reply of the agent (or of the grader) to `body`."""
    messages = body["messages"]
    if str(body["model"]).endswith("grader"):
        passed = "The answer is 42" in json.dumps(messages)
        return Reply(text=json.dumps({"passed": passed, "evidence": "read it"}), usage=USAGE)
    offered = SKILL in json.dumps(messages[0])
    done = [m["role"] for m in messages].count("tool")
    if offered and done == 0:
        path = f"{FOLDER}/SKILL.md"
        return Reply(tool_calls=[{"name": "read", "arguments": {"path": path}}], usage=USAGE)
    answer = "42" if offered else "41"
    if done < (2 if offered else 1):
        args = {"path": "answer.txt", "content": f"{answer}\n"}
        return Reply(tool_calls=[{"name": "write", "arguments": args}], usage=USAGE)
    return Reply(text=f"The answer is {answer}.", usage=USAGE)
