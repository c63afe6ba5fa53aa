"""GitHub Copilot CLI: adapter, stream parser, private configuration home, discovery."""
