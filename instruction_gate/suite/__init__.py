"""A suite at a commit: the manifest, the static contract, the files the suite references and what it hides.

May import the core (errors, git, globs, schemas) and `rules`; never `run`, `verdict` or `report`.
"""
