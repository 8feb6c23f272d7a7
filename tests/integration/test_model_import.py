"""litellm imported the quick way (`processes.heavy_imports`: the collector paused, pydantic's
builds deferred, the OpenAI SDK's `openai.resources` initialised only when asked) still reaches
every provider: in a fresh process, an OpenAI-compatible server and an Anthropic one answer
through the real litellm path, and afterwards the SDK's resources are all there when asked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support.anthropic_server import AnthropicReply, AnthropicServer
from support.openai_server import OpenAIServer, Reply

CALLS = """
import asyncio, gc, json, sys
from workbench.agent.models.client import ModelInfo, ModelRequest, TextDelta
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
    return said, loaded

said, loaded = asyncio.run(main())
import openai.resources
from pydantic._internal._config import config_defaults
print(json.dumps({
    "said": said, "loaded": loaded, "collecting": gc.isenabled(),
    "deferring": config_defaults["defer_build"], "asked": openai.resources.AsyncBeta.__name__,
}))
"""


def test_a_fresh_process_reaches_both_providers_with_only_the_chat_resource(
    tmp_path: Path,
) -> None:
    with OpenAIServer() as openai, AnthropicServer() as anthropic:
        openai.add(Reply(text="from the openai-compatible server"))
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
    assert result["said"] == ["from the openai-compatible server", "from the anthropic server"]
    assert "openai.resources.chat" in result["loaded"]
    assert not {"openai.resources.beta", "openai.resources.admin"} & set(result["loaded"])
    assert result["collecting"] is True and result["deferring"] is False
    assert result["asked"] == "AsyncBeta", "a name the package's __init__ binds is there"
