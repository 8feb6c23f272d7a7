"""The agent: loop, model adapter, tools, compaction, sub-agents."""
