"""The mining report: yield, time per candidate, and every candidate kept or dropped with why."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from instruction_gate.mining.proposals import Proposal
from instruction_gate.report import textfmt as fmt
from instruction_gate.report.tables import table


@dataclass
class Row:
    commit: str
    subject: str
    status: str  #: kept | dropped (by validation) | not-posable (on this base) | not-validated | not-a-candidate
    reason: str
    task_id: str | None = None
    seconds: float | None = None  #: validation time
    flags: list[str] = field(default_factory=list)  #: what the prompt's reviewer should look at


@dataclass
class MiningReport:
    scanned: int
    rows: list[Row]
    proposals: list[Proposal]
    seconds: float
    written: list[str] = field(default_factory=list)  #: task ids added to the manifest
    already: list[str] = field(default_factory=list)  #: kept, but the manifest already holds their commit
    notes: list[str] = field(default_factory=list)  #: what the user should know about the whole suite

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.rows)

    def as_json(self) -> dict[str, Any]:
        validated = self.count("kept") + self.count("dropped")
        return {"schema_version": 1, "kind": "instruction-gate/mining-report", "scanned_commits": self.scanned,
                "candidates": len([r for r in self.rows if r.status != "not-a-candidate"]), "validated": validated,
                "kept": self.count("kept"), "yield": round(self.count("kept") / validated, 3) if validated else None,
                "seconds": round(self.seconds, 1), "written": self.written, "already_in_manifest": self.already,
                "notes": self.notes,
                "seconds_per_validated_candidate": round(sum(r.seconds or 0 for r in self.rows) / validated, 1) if validated else None,
                "proposed_rules": [{"rule": p.rule, "source": p.source, "text": p.text} for p in self.proposals],
                "rows": [vars(r) for r in self.rows]}

    def markdown(self) -> str:
        data = self.as_json()
        shown_yield = "n/a" if data["yield"] is None else f"{data['yield']:.0%}"
        lines = [f"## Mined tasks: {data['kept']} kept of {data['validated']} validated "
                 f"({shown_yield}); {data['candidates']} fix-shaped of {self.scanned} commits; {self.seconds:.0f} s", ""]
        if data["seconds_per_validated_candidate"] is not None:
            lines += [f"Validation took {data['seconds_per_validated_candidate']} s per candidate (two rounds).", ""]
        lines += [f"⚠️ {note}" for note in self.notes] + ([""] if self.notes else [])
        if self.already:
            lines += [f"Not written, the manifest already holds their commit: {', '.join(self.already)}.", ""]
        if self.written:
            lines += [f"Added to the manifest: {', '.join(self.written)}. Every prompt is marked for review "
                      "(`origin.prompt_reviewed: false`); read it, fix it, then set it to true.", ""]
        order = {"kept": 0, "dropped": 1, "not-posable": 2, "not-validated": 3, "not-a-candidate": 4}
        rows = [[fmt.md(r.commit[:10]), fmt.md(r.subject, 80), r.status, fmt.md(r.reason, 300),
                 fmt.md("; ".join(r.flags), 300)] for r in sorted(self.rows, key=lambda r: order[r.status])]
        lines += table(["commit", "subject", "status", "why", "review"], rows, rest_in="the report's JSON") + [""]
        if self.proposals:
            lines += ["### Rules proposed from the instruction files (review them)", ""]
            lines += table(["source", "rule", "read from"], [[p.source, fmt.md(f"{p.rule['kind']} {p.rule.get('pattern') or p.rule.get('globs')}"),
                                                          fmt.md(p.text, 200)] for p in self.proposals]) + [""]
        return "\n".join(lines)
