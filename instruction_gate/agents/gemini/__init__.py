"""Gemini CLI: adapter, stream parser, private home, session, discovery and imports."""
