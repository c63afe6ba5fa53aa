"""Student t quantiles of the default levels for small degrees of freedom, written once by scipy.

`scipy.special` costs about 0.2 s of CPU to import (it clones the whole numpy namespace), more
than every statistic compare computes. The quantiles compare needs at the default policy (the
two-sided 95 % level and the power note's 80 %) for up to `DEGREES` degrees of freedom are kept
in `t_quantiles.npy`, exactly as scipy's `stdtrit` returned them, so compare gives the same bytes
with or without scipy loaded. Anything else
(another level, a sequential look's alpha, more degrees of freedom) asks scipy.

Regenerate after a scipy upgrade (a test holds the table to scipy):
    .venv/bin/python -m instruction_gate.verdict.t_table
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from instruction_gate.console import say

TABLE = Path(__file__).resolve().parent / "t_quantiles.npy"
#: Degrees of freedom covered (1..DEGREES): the power note's search for the tasks a suite needs
#: stays within them up to 8,192 tasks (128 KiB of float64).
DEGREES = 8192
#: The probabilities tabled, one row each: the default confidence level's upper quantile, the default power.
PROBABILITIES = (0.5 + 0.95 / 2, 0.8)


@lru_cache(maxsize=1)
def _tables() -> dict[float, np.ndarray]:
    return dict(zip(PROBABILITIES, np.load(TABLE, allow_pickle=False)))


def lookup(df: float | np.ndarray, probability: float) -> np.float64 | np.ndarray | None:
    """`stdtrit(df, probability)` from the table, shaped as scipy returns it; None when not tabled."""
    quantiles = _tables().get(float(probability)) if np.ndim(probability) == 0 else None
    if quantiles is None:
        return None
    wanted = np.asarray(df, dtype=float)
    if wanted.size == 0 or not np.all((wanted >= 1) & (wanted <= len(quantiles)) & (wanted == np.floor(wanted))):
        return None
    found = quantiles[wanted.astype(np.int64) - 1]
    return found if wanted.ndim else found[()]


def main() -> int:
    from scipy.special import stdtrit

    degrees = np.arange(1, DEGREES + 1, dtype=float)
    np.save(TABLE, np.array([stdtrit(degrees, p) for p in PROBABILITIES]), allow_pickle=False)
    say(f"wrote {TABLE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
