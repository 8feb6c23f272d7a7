"""The agent: the loop and its steps (asking the model with retries, running tool calls,
compaction) with the state they share and their settings, the message queues, the conversation
store interface, events, the system prompt and context files, and extensions. Child processes
(the warm interpreter, the runner) live in `workbench.processes`.

A package per concept below it: `models/` (model adapters), `tools/` (the four built-in tools and
the `--tools` allowlist), `subagents/` (child agents as processes). May import `skills`,
`messages`, `tool`, `hooks`, `extension_api`, `processes`, `config` and `errors`; never
`sessions`, `runtime` or a front end.
"""
