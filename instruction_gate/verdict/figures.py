"""How a metric's figures are written: signed differences, ratios, intervals and bounds.

Plain text with no Markdown, so the verdict's headline and the reports say the same numbers.
"""

from __future__ import annotations

from instruction_gate.verdict.metrics import MetricResult


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
