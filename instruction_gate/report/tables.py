"""The one Markdown table layout of the reports, with a row cap."""

from __future__ import annotations

#: Rows shown per table; the rest is counted and left to summary.json.
MAX_ROWS = 50


def table(header: list[str], rows: list[list[str]], total: int | None = None, rest_in: str = "summary.json") -> list[str]:
    """A GitHub Markdown table of at most MAX_ROWS rows; `total` counts rows not passed in;
    `rest_in` names the file that holds every row."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell or " " for cell in row) + " |" for row in rows[:MAX_ROWS]]
    hidden = (total if total is not None else len(rows)) - min(len(rows), MAX_ROWS)
    if hidden > 0:
        lines.append(f"\n… and {hidden} more rows in {rest_in}.")
    return lines
