"""Class: the lint stays linear. The indexed IG006 search finds exactly the contradictions the
pairwise comparison finds (one per later directive and distinct earlier action), and line
numbers come from a binary search that agrees with counting."""

from __future__ import annotations

import random

import pytest

from instruction_gate.lint import contradictions
from instruction_gate.lint.directives import contradicts, directives
from instruction_gate.lint.markdown import line_of

WORDS = "run make test lint build deploy commit push main branch tests module docs format".split()
MARKERS = ["Always", "Never", "Do not", "Must", "You should", "Avoid", "Run", "Make sure to"]


def _brute_force(loaded):
    first, pairs = {}, set()
    for path, d in loaded:
        key = (d.positive, frozenset(d.action))
        for other_key, (earlier_path, earlier) in first.items():
            if other_key[0] != d.positive and contradicts(earlier, d):
                pairs.add(((earlier_path, earlier.start), (path, d.start)))
        first.setdefault(key, (path, d))
    return pairs


@pytest.mark.parametrize("seed", range(12))
def test_indexed_search_equals_pairwise_comparison(seed):
    rng = random.Random(seed)
    sentences = []
    for _ in range(rng.randint(20, 120)):
        marker = rng.choice(MARKERS)
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
        sentences.append(f"{marker} {'run ' if marker in ('Always', 'Never', 'Must') else ''}{words}.")
    text = "\n".join(" ".join(sentences[i:i + 3]) + "\n" for i in range(0, len(sentences), 3))
    loaded = [("AGENTS.md", d) for d in directives(text)]
    fast = {((ep, e.start), (lp, d.start)) for (ep, e), (lp, d) in contradictions._contradictions(loaded)}
    assert fast == _brute_force(loaded)


def test_repeated_contradictions_give_one_finding_per_directive():
    pair = "Always run `make test` before committing. Never run `make test` before committing.\n"
    loaded = [("AGENTS.md", d) for d in directives(pair * 200)]
    found = list(contradictions._contradictions(loaded))
    assert len(found) == len(loaded) - 1  # every directive after the first contradicts the first opposite


@pytest.mark.parametrize("text", ["", "a", "\n", "a\nb", "\n\n\nx\n", "x" * 50 + "\n" * 3 + "y"])
def test_line_numbers_agree_with_counting(text):
    assert [line_of(text, i) for i in range(len(text) + 1)] == [text.count("\n", 0, i) + 1 for i in range(len(text) + 1)]
