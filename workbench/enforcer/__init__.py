"""Skill-graph enforcement, plugged into the agent through the hook bus.

May import `skills`, `hooks`, `tool`, `messages`, `extension_api`, `config` and `errors`; never
the agent loop, which knows the enforcer only as one more extension.
"""
