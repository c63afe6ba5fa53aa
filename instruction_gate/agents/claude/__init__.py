"""Claude Code: adapter, stream parser, discovery (CLAUDE.md, rules, imports)."""
