"""Skill-graph enforcement, plugged into the agent through the hook bus."""
