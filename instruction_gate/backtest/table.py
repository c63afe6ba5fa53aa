"""The backtest's outputs from its rows alone: backtest.json, and backtest.md with a Mermaid chart.

A row is a plain dict (see `commands/backtest.py` and the README): date, commit, subject,
instruction and code files, mode, verdict, exit code, success delta with its interval,
blocking findings, runs spent, detail.
"""

from __future__ import annotations

from typing import Any

from instruction_gate.records import RECORD_SCHEMA_VERSION
from instruction_gate.report import textfmt as fmt

ICONS = {"pass": "✅", "fail": "❌", "inconclusive": "⚠️", "not evaluated": "⏸", "error": "⛔"}


def document(rows: list[dict[str, Any]], header: dict[str, Any]) -> dict[str, Any]:
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["verdict"]] = counts.get(row["verdict"], 0) + 1
    return {"schema_version": RECORD_SCHEMA_VERSION, "kind": "instruction-gate/backtest", **header,
            "verdicts": counts, "runs": sum(r["runs"] for r in rows), "commits": rows}


def _points(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:+.0f}"


def _delta(row: dict[str, Any]) -> str:
    delta = row.get("success_delta")
    if not delta or delta.get("estimate") is None:
        return "—"
    return f"{_points(delta['estimate'])} [{_points(delta.get('low'))}, {_points(delta.get('high'))}]"


def chart(rows: list[dict[str, Any]]) -> list[str]:
    """Mermaid xychart: the success-rate delta (points) per commit, the verdict in each label."""
    if not rows:
        return []
    labels = ", ".join(f'"{r["commit"][:7]} {r["verdict"]}"' for r in rows)
    bars = ", ".join(f"{round((r.get('success_delta') or {}).get('estimate') or 0.0, 4) * 100:.1f}" for r in rows)
    return ["```mermaid", "xychart-beta", '    title "Success-rate delta per instruction commit (points, candidate - parent)"',
            f"    x-axis [{labels}]", '    y-axis "delta (points)" -100 --> 100', f"    bar [{bars}]", "```", ""]


def markdown(doc: dict[str, Any]) -> str:
    rows = doc["commits"]
    lines = [f"# Instruction backtest: {len(rows)} commits", "",
             f"Suite and policy from `{doc['suite_ref']}` ({doc['suite_sha'][:12]}); range `{doc['range']}`; "
             f"mixed commits evaluated with their code held fixed. {doc['runs']} agent runs.", ""]
    if rows:
        lines += ["Verdicts over time (oldest first): " + " ".join(ICONS.get(r["verdict"], "?") for r in rows), ""]
        lines += chart(rows)
    lines += ["| date | commit | subject | instruction files | verdict | success Δ, points [interval] | blocking | runs |",
              "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        files = ", ".join(fmt.code(f) for f in row["instruction_files"])
        if row["code_files"]:
            files += f" (+{len(row['code_files'])} code file{'s' if len(row['code_files']) != 1 else ''} held fixed)"
        verdict = f"{ICONS.get(row['verdict'], '')} {row['verdict']}"
        if row.get("detail"):
            verdict += f": {row['detail']}"
        blocking = "; ".join(row["blocking"]) or "—"
        lines.append(f"| {row['date'][:10]} | `{row['commit'][:12]}` | {fmt.md(row['subject'], 80)} | {files} | "
                     f"{fmt.md(verdict, 300)} | {_delta(row)} | {fmt.md(blocking, 300)} | {row['runs']} |")
    return "\n".join(lines) + "\n"
