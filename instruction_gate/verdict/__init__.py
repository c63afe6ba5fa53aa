"""From run records to a verdict: pairing, statistics, hard gates, policy and the decision.

Pure data in, data out: may import errors, records, schemas and `rules`; never `run`, `suite`, `git` or `proc`.
"""
