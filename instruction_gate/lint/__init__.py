"""Static lint of instruction files: deterministic findings at no model cost.

One module per rule family; `engine.lint_revisions` runs them over the base and the
candidate and marks what the candidate introduces. Rule ids (IG001, ...) are stable.
"""
