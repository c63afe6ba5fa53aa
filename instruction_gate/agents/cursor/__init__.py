"""Cursor: discovery from its documentation (no adapter: Cursor cannot be run here)."""
