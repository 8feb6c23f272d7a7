"""Headless front ends: print, JSON lines, RPC."""
