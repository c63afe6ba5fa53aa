"""Number and text formatting shared by the summary, the annotations and the messages.

Record strings (commands, paths, reasons) can come from the agent working under untrusted
candidate instructions, so everything put into Markdown is escaped and shortened.
"""

from __future__ import annotations

import re

from instruction_gate.metrics import MetricResult

#: Characters that could start emphasis, code, links, HTML or table cells in inline text.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")


def signed(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "n/a"
    text = f"{value:+.{digits}f}"
    return "±0." + "0" * digits if float(text) == 0 else text.replace("-", "−")


def ratio(value: float | None) -> str:
    return "∞" if value is None else f"{value:.2f}"


def interval(metric: MetricResult) -> str:
    """`[low, high]` on the metric's own scale (a ratio's missing high is unbounded)."""
    if metric.estimate is None:
        return "n/a"
    if metric.spec.kind == "difference":
        return f"[{signed(metric.low)}, {signed(metric.high)}]"
    return f"[{ratio(metric.low)}, {ratio(metric.high)}]"


def estimate(metric: MetricResult) -> str:
    if metric.estimate is None:
        return "n/a"
    return signed(metric.estimate) if metric.spec.kind == "difference" else f"×{metric.estimate:.2f}"


def bound(metric: MetricResult) -> str:
    if metric.bound is None:
        return "—"
    return signed(-metric.bound) if metric.spec.kind == "difference" else f"×{metric.bound:g}"


def describe_metric(metric: MetricResult) -> str:
    """E.g. `−0.40 [−0.62, −0.18]`."""
    if metric.estimate is None:
        return "no data"
    return f"{estimate(metric)} {interval(metric)}"


def clip(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def md(text: object, limit: int = 200) -> str:
    """Inline Markdown-safe text: one line, special characters escaped, length capped."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", clip(str(text), limit))


def code(text: object, limit: int = 120) -> str:
    """Inline code span that survives backticks and pipes inside `text`."""
    body = clip(str(text), limit).replace("|", "\\|")
    fence = "`" * (max((len(run) for run in re.findall(r"`+", body)), default=0) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{fence}{pad}{body}{pad}{fence}" if body else ""
