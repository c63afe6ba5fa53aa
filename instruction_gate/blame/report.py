"""blame.json and blame.md: the hunks, each bisection step, the answer and what it cost."""

from __future__ import annotations

from typing import Any

from instruction_gate.blame.search import Outcome
from instruction_gate.hunks import Hunk
from instruction_gate.report import textfmt as fmt


def _label(hunks: list[Hunk], chosen) -> str:
    return ", ".join(f"hunk {i + 1} ({hunks[i].label})" for i in chosen)


def as_json(outcome: Outcome, hunks: list[Hunk]) -> dict[str, Any]:
    return {
        "hunks": [h.as_dict() | {"number": i + 1, "label": h.label} for i, h in enumerate(hunks)],
        "steps": [{"hunks": [i + 1 for i in s.hunks], "reproduced": s.reproduced, "runs": s.runs, "detail": s.detail}
                  for s in outcome.steps],
        "culprit": [i + 1 for i in outcome.culprit],
        "culprit_labels": [hunks[i].label for i in outcome.culprit],
        "confirmed": outcome.confirmed,
        "sentence": (f"The failure follows {_label(hunks, outcome.culprit)}"
                     + ("." if outcome.confirmed else
                        ": inferred, no smaller set of the other hunks reproduced it (not run alone; "
                        "raise the budget by one step to confirm).")),
    }


def markdown(result: dict[str, Any]) -> str:
    lines = ["## instruction-gate blame", ""]
    if result["status"] == "nothing_to_blame":
        return "\n".join(lines + [f"Nothing to blame: {result['reason']}.", ""])
    failing = "; ".join(f"{fmt.md(task, 80)} ({', '.join(c)})" for task, c in result["failing"].items())
    lines += [f"**{fmt.md(result['sentence'], 400)}**", "",
              f"Failing tasks re-run: {failing}. Cost: {result['runs']} agent runs "
              f"(a binary search needs {result['binary_search_runs']}; budget {result['budget_runs']}), "
              f"${result['cost_usd']:.4f} reported by the adapter.", "",
              "| step | hunks applied | failure came back | runs | detail |", "|---|---|---|---|---|"]
    for number, step in enumerate(result["steps"], start=1):
        lines.append(f"| {number} | {', '.join(map(str, step['hunks']))} | {'yes' if step['reproduced'] else 'no'} "
                     f"| {step['runs']} | {fmt.md(step['detail'], 300)} |")
    lines += ["", "| hunk | lines | first changed line |", "|---|---|---|"]
    for hunk in result["hunks"]:
        first = (hunk["added"] or hunk["removed"] or [""])[0]
        sign = "+" if hunk["added"] else "−"
        lines.append(f"| {hunk['number']} | {fmt.md(hunk['label'], 120)} | {sign} {fmt.code(first.strip(), 100)} |")
    if result["status"] == "not_evaluated":
        lines += ["", "No trial produced a valid run (infrastructure failures): the answer above is not evidence."]
    return "\n".join(lines) + "\n"
