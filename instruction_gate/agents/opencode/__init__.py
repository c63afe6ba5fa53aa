"""OpenCode: adapter, stream parser, private XDG home, discovery."""
