"""Test helpers shared by unit, integration and TUI tests."""
