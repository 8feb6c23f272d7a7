"""Headless front ends: print, JSON lines, RPC. Each may import `runtime` and what it exports,
never another front end."""
