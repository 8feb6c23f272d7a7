"""litellm imported the quick way (`processes.heavy_imports`: the collector paused, pydantic's
builds deferred; `processes.lazy_packages`: the OpenAI SDK's types and resources loaded name by
name; `lazy_encoding`: tiktoken's encoding built at first use) still reaches every provider: in
a fresh process, an OpenAI-compatible server and an Anthropic one answer through the real
litellm path, an error reply is classified as before, and afterwards the SDK's types and
resources and the encoding are all there when asked, having been loaded by no call."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support.anthropic_server import AnthropicReply, AnthropicServer
from support.openai_server import OpenAIServer, Reply, Status

CALLS = """
import asyncio, gc, json, sys
from workbench.agent.models.client import ModelError, ModelInfo, ModelRequest, TextDelta
from workbench.agent.models.litellm_client import LitellmModel
from workbench.messages import Message

async def ask(model, base):
    reply = LitellmModel(ModelInfo(model), api_base=base, api_key="k")
    request = ModelRequest("be brief", [Message("user", "hi")])
    return "".join([d.text async for d in reply.stream(request) if isinstance(d, TextDelta)])

async def main():
    said = [await ask("openai/local-model", sys.argv[1])]
    loaded = sorted(m for m in sys.modules if m.startswith("openai.resources."))
    said.append(await ask("anthropic/claude-sonnet-4-5", sys.argv[2]))
    try:
        said.append(await ask("openai/local-model", sys.argv[1]))
    except ModelError as error:
        said.append(error.kind)
    return said, loaded

said, loaded = asyncio.run(main())
types = {m for m in sys.modules if m.startswith("openai.types.")}
from tiktoken import get_encoding
built = "_core_bpe" in vars(get_encoding("cl100k_base"))
import openai.resources, openai.types
from pydantic._internal._config import config_defaults
print(json.dumps({
    "said": said, "loaded": loaded, "collecting": gc.isenabled(),
    "deferring": config_defaults["defer_build"], "asked": openai.resources.AsyncBeta.__name__,
    "types": sorted(types), "built": built, "counted": get_encoding("cl100k_base").encode("hi"),
    "type": openai.types.EvalCreateParams.__module__,
}))
"""


def test_a_fresh_process_reaches_both_providers_with_only_the_chat_resource(
    tmp_path: Path,
) -> None:
    with OpenAIServer() as openai, AnthropicServer() as anthropic:
        openai.add(Reply(text="from the openai-compatible server"))
        openai.add(Status(400, "This model's maximum context length is 8192 tokens"))
        anthropic.add(AnthropicReply("from the anthropic server"))
        done = subprocess.run(
            [sys.executable, "-c", CALLS, openai.url, anthropic.url],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["said"] == [
        "from the openai-compatible server",
        "from the anthropic server",
        "context_overflow",
    ]
    assert "openai.resources.chat" in result["loaded"]
    assert not {"openai.resources.beta", "openai.resources.admin"} & set(result["loaded"])
    assert "openai.types.chat.chat_completion_chunk" in result["types"]
    unused = {"openai.types.eval_create_params", "openai.types.realtime", "openai.types.webhooks"}
    assert not unused & set(result["types"]), "types that the package's __init__ would load"
    assert result["built"] is False, "no call counted tokens: the encoding was never built"
    assert result["collecting"] is True and result["deferring"] is False
    assert result["asked"] == "AsyncBeta", "a name the package's __init__ binds is there"
    assert result["type"] == "openai.types.eval_create_params"
    assert result["counted"] == [6151], "the encoding builds when first used"


IMPORTED_ASIDE = """
import asyncio, sys
from workbench.agent.models import litellm_import
from workbench.agent.models.client import ModelInfo, ModelRequest, TextDelta
from workbench.agent.models.litellm_client import LitellmModel
from workbench.messages import Message

async def main():
    steps_while_importing = 0

    async def step():
        nonlocal steps_while_importing
        while True:
            await asyncio.sleep(0.005)
            steps_while_importing += litellm_import._lock.locked()

    stepping = asyncio.create_task(step())
    reply = LitellmModel(ModelInfo("openai/local-model"), api_base=sys.argv[1], api_key="k")
    request = ModelRequest("be brief", [Message("user", "hi")])
    text = "".join([d.text async for d in reply.stream(request) if isinstance(d, TextDelta)])
    stepping.cancel()
    print(text, steps_while_importing, sep="\\n")

asyncio.run(main())
"""


def test_a_first_call_that_imports_litellm_leaves_the_event_loop_running_meanwhile(
    tmp_path: Path,
) -> None:
    """The app's model chosen after its start (`/model`) has no call process: its first call
    imports litellm in a thread, and the app's loop (its keys) goes on through the import."""
    with OpenAIServer() as openai:
        openai.add(Reply(text="answered"))
        done = subprocess.run(
            [sys.executable, "-c", IMPORTED_ASIDE, openai.url],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    text, steps = done.stdout.strip().splitlines()[-2:]
    assert text == "answered"
    assert int(steps) > 0, "the loop ran no step while litellm was imported"
