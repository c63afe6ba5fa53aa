"""Adapters for real coding agents: output parsers, runners, discovery rules, broker, replay."""
