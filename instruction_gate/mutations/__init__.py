"""Mutation operators: break a repository's instruction files on purpose, one rule at a time.

A suite that still passes a mutant does not depend on what the mutant removed or altered.
Operators work on any repository's instruction files (path -> bytes); repository-specific
mutants can also come from patch files (`patches.py`).
"""
