"""Sub-agents: the `subagent` tool (`tool`), its request modes (`request`), agent files
(`agent_files`), running each child as a `workbench --mode json` process (`run`, through
`workbench.processes`), reading its events into a report (`report`) and the text the model and
the UI see (`text`), and their settings and trust (`settings`).

May import `processes`, `agent.models`, `agent.extensions`, `skills`, `tool`, `config` and
`errors`; never the loop.
"""
