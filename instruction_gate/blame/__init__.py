"""Blame: re-run the failing tasks with subsets of the candidate's instruction hunks to find the
smallest set that reproduces the failure. `search.py` is the pure bisection (no agent); `runs.py`
spends the agent runs through the mutation machinery (scratch commits, the suite runner); it may
import suite/, run/ and mutations/."""
