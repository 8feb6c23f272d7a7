"""workbench: a keyboard-driven terminal workbench for LLM agent sessions."""

__version__ = "0.1.0"
