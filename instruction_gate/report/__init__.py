"""From a verdict to what people and GitHub read: summary.md, summary.json, annotations, action outputs.

May import errors, records, schemas, `verdict` and `rules`; never `run`, `suite`, `git` or `proc`.
"""
