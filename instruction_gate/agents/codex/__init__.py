"""OpenAI Codex CLI: adapter, stream parser, discovery (AGENTS.md chain)."""
