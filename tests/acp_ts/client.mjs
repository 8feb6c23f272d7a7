// A second ACP client, written by no one here: the protocol's TypeScript SDK
// (@agentclientprotocol/sdk 2.4.0, whose 2.x app API replaced 1.x's ClientSideConnection)
// drives `workbench --mode acp` over the child's stdio through the scenario of
// tests/integration/test_acp_mode.py: a prompt with a tool call, streaming, cancel mid-stream,
// a slash command, a mode change, list, fork (the unstable entry point) and, in a fresh
// process, load. It prints one JSON summary on stdout; the pytest test checks it.
//
// Environment: WB_PYTHON (the interpreter with workbench installed), WB_MODEL (a scripted:
// model), WB_CWD (the project folder).
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/unstable";

const python = process.env.WB_PYTHON ?? "python3";
const model = process.env.WB_MODEL;
const cwd = process.env.WB_CWD ?? process.cwd();
const summary = {};

function startAgent() {
  const child = spawn(python, ["-m", "workbench", "--mode", "acp", "--model", model], {
    cwd,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const updates = [];
  const waiters = [];
  const app = acp
    .client({ name: "workbench-ts-test" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
      for (const waiter of waiters.splice(0)) waiter();
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => ({
      outcome: { outcome: "selected", optionId: params.options[0].optionId },
    }));
  const until = async (predicate) => {
    const deadline = Date.now() + 20000;
    while (!updates.some(predicate)) {
      if (Date.now() > deadline) throw new Error("no matching session/update");
      await new Promise((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  };
  return { child, stream, app, updates, until };
}

const text = (updates, sessionId, kind = "agent_message_chunk") =>
  updates
    .filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === kind)
    .map((u) => u.update.content.text)
    .join("");

async function initialize(agent) {
  return agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: "workbench-ts-test", version: "1.0.0" },
  });
}

const prompt = (agent, sessionId, words) =>
  agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: words }],
  });

async function firstProcess() {
  const { child, stream, app, updates, until } = startAgent();
  try {
    await app.connectWith(stream, async (agent) => {
      const init = await initialize(agent);
      summary.agentInfo = init.agentInfo;
      summary.capabilities = init.agentCapabilities;

      const created = await agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
      const sid = created.sessionId;
      summary.sessionId = sid;
      summary.modes = created.modes.availableModes.map((m) => m.id);

      const first = await prompt(agent, sid, "fix the notes");
      summary.firstStop = first.stopReason;
      const mine = updates.filter((u) => u.sessionId === sid).map((u) => u.update);
      summary.toolCalls = mine
        .filter((u) => u.sessionUpdate === "tool_call")
        .map((u) => ({ id: u.toolCallId, kind: u.kind, path: u.locations?.[0]?.path }));
      summary.toolEnds = mine
        .filter((u) => u.sessionUpdate === "tool_call_update" && u.status)
        .map((u) => ({ id: u.toolCallId, status: u.status, content: u.content.map((c) => c.type) }));
      summary.chunks = mine.filter((u) => u.sessionUpdate === "agent_message_chunk").length;
      summary.reply = text(updates, sid);
      summary.commands = mine
        .filter((u) => u.sessionUpdate === "available_commands_update")
        .flatMap((u) => u.availableCommands.map((c) => c.name));

      const before = updates.length;
      const asked = Date.now();
      const streaming = prompt(agent, sid, "talk for a while");
      await until((u, i) => i >= before && u.update.sessionUpdate === "agent_message_chunk");
      summary.firstChunkMs = Date.now() - asked;
      const cancelled = Date.now();
      await agent.notify(acp.methods.agent.session.cancel, { sessionId: sid });
      summary.cancelStop = (await streaming).stopReason;
      summary.cancelMs = Date.now() - cancelled;

      await agent.request(acp.methods.agent.session.setMode, { sessionId: sid, modeId: "block" });
      summary.statusStop = (await prompt(agent, sid, "/skill-graph-status")).stopReason;
      summary.modeUpdates = updates
        .filter((u) => u.sessionId === sid && u.update.sessionUpdate === "current_mode_update")
        .map((u) => u.update.currentModeId);
      summary.statusText = text(updates, sid);

      const forked = await agent.request(acp.methods.agent.session.fork, { sessionId: sid, cwd });
      summary.fork = { sessionId: forked.sessionId, meta: forked._meta };
      const listed = await agent.request(acp.methods.agent.session.list, { cwd });
      summary.listed = listed.sessions.map((s) => s.sessionId);
    });
  } finally {
    child.stdin.end();
  }
}

async function secondProcess() {
  const { child, stream, app, updates } = startAgent();
  try {
    await app.connectWith(stream, async (agent) => {
      await initialize(agent);
      await agent.request(acp.methods.agent.session.load, {
        sessionId: summary.sessionId,
        cwd,
        mcpServers: [],
      });
      summary.replayed = updates
        .filter((u) => u.sessionId === summary.sessionId)
        .map((u) => u.update.sessionUpdate);
      summary.replayedUser = text(updates, summary.sessionId, "user_message_chunk");
    });
  } finally {
    child.stdin.end();
  }
}

try {
  await firstProcess();
  await secondProcess();
  console.log(JSON.stringify(summary));
} catch (err) {
  console.error("client error:", err);
  process.exitCode = 1;
}
