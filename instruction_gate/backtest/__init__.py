"""Backtest: a repository's instruction history replayed through the gate (see commands/backtest.py)."""
