"""Everything that spends agent runs: workspaces, the adapter process, checks, records, rounds and caches.

May import the core, `suite`, `rules` and `verdict` (sequential stops, budgets); never `report`.
"""
