"""Floors under the directive-corpus figures (benchmarks/directive_corpus.py), and its scoring rules.

The floors are the figures measured when the corpus was added, rounded down. They only ratchet
up: whoever improves the directive grammar or the lint raises them to the new measurement, so a
later change cannot quietly give the gain back. Targets (issue 20): overall precision >= 0.95,
recall on commands to run >= 0.80, lint false positives <= 1 per 20 files.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "directive_corpus.py"
_SPEC = importlib.util.spec_from_file_location("directive_corpus", _PATH)
bench = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = bench  # dataclasses look their module up while the file executes
_SPEC.loader.exec_module(bench)

#: The targets (issue: precision >= 0.95, recall >= 0.8 on commands to run, lint false findings
#: <= 1 per 20 files), held on the whole corpus (tuning and the held-out splits); measured 0.98 /
#: 0.90 overall, 0.96 / 0.91 on commands, no false lint findings and 11 true on 58 files (one an IG012).
#: Ratchet: never lower these; raise them when the grammar or the lint improves. Lowered once, by 0.01 of
#: recall, for a deliberate precision trade: "Build with `X`" stopped being a step (two wrong directives on
#: unseen files against one right one here); precision rose to 0.99 / 0.99 on these files.
PRECISION_OVERALL_FLOOR = 0.98
RECALL_OVERALL_FLOOR = 0.88
PRECISION_COMMANDS_FLOOR = 0.98
RECALL_COMMANDS_FLOOR = 0.89
LINT_FALSE_PER_20_CEILING = 0.5  #: at most one false finding on the whole corpus
LINT_TRUE_FLOOR = 11
#: Per split, just under the figures measured after the fixes (precision, overall recall, recall on
#: commands to run, lint false findings per 20 files). `held_out` was first measured, before any fix,
#: at 0.29 precision, 0.38 recall on commands and 41.7 false lint findings per 20 files;
#: `held_out_2` (11 files of 8 other repositories) at 0.21 / 0.33 / 9.1. After the fixes:
#: tuning 0.98 / 0.83 / 0.89 / 0.0, held_out 1.00 / 0.89 / 0.88 / 0.0, held_out_2 0.90 / 0.95 / 0.89 / 0.0.
#: `held_out_3` (6 files of 3 repositories a new-user trial read) first measured 0.75 / 0.25 / 13.3; after
#: its fixes 1.00 / 1.00 / 1.00 / 0.0, and tuning rose to 0.98 / 0.84 / 0.89.
#: `held_out_4` (10 files of 8 repositories: PHP, Swift, C++, Java, Elixir, Deno, Python, TypeScript)
#: measured before any fix at 0.45 precision, 0.32 recall, 0.29 recall on commands and 18.0 false lint
#: findings per 20 files (9 false, 5 true); after fixing three categories (a shell comment after one
#: space kept in the command, prohibitions for "X-only PRs", HTML comments written in code spans)
#: 0.52 / 0.34 / 0.32 / 14.0; after four more grammar categories (an every-change lead "When working in this
#: repository, run …", checks for one kind of change, set-up lines needing a placeholder secret or a service,
#: a "Validate before handoff:" label) and six IG002 ones (git refs, images, Composer packages, `path/to/`
#: placeholders, naming examples, files the reader writes) 0.86 / 0.68 / 0.74 / 0.0, and its floor sits just
#: under that. It stays out of the whole-corpus floors while its directive figures are under the targets.
#: `held_out_5` (12 files of 10 repositories: Go, Rust, Python, TypeScript, Kotlin, Ruby, C#, C++, Swift,
#: Elixir) measured before any fix at 0.56 precision, 0.27 recall, 0.91 / 0.43 on commands and 11.7 false
#: lint findings per 20 files; with the precision-first abstentions written before it was read, the same
#: directive figures and 8.3; after its fixes 0.88 / 0.70 / 1.00 / 0.78 / 0.0, held_out_4 then 1.00 / 0.68 / 0.74.
#: `held_out_6` (12 files of 10 repositories: Go, Rust, Python/TypeScript, Kotlin, C#, C++, Ruby, Elixir,
#: Swift, PHP), measured after all of that, before any fix of its own: 0.50 precision, 0.32 recall, 0.47 / 0.39
#: on commands, 5.0 false lint findings per 20 files; after its fixes 0.96 / 0.68 / 0.94 / 0.65 / 0.0.
#: `held_out_7` (12 files of 10 repositories: Ruby, PHP ×2, .NET, Elixir, Kotlin, Go, Rust, C++, Swift), measured
#: after all of that, before any fix of its own: 0.78 precision (commands 0.80), 0.19 recall (commands 0.24),
#: 3.3 false lint findings per 20 files; after its fixes 1.00 / 0.56 / 0.71 / 0.0.
#: `held_out_8` (12 files of 10 repositories: Go, Python ×2, .NET ×2, Kotlin, TypeScript, PHP, C ×2, Rust, Ruby),
#: measured after all of that, before any fix of its own: 0.47 precision (commands 0.53), 0.43 recall (commands
#: 0.45), 21.7 false lint findings per 20 files; after its fixes 1.00 / 0.74 / 0.85 / 0.0.
#: `held_out_9` (12 files of 9 repositories: TypeScript ×4, Python ×6, Go), measured after all of that, before
#: any fix of its own: 0.77 precision (commands 0.80), 0.50 recall (commands 0.48), 40.0 false lint findings
#: per 20 files; after its fixes 0.92 / 0.50 / 0.48 / 0.0; after its recall was worked on (a finishing
#: heading over its list, "To ensure …, run:" and "To set up the environment:" over a block, an install
#: comment naming the kind of dependencies, a test label with what the suite is in brackets) 0.94 / 0.67 /
#: 0.76 / 0.0, held_out_4 then 1.00 / 0.70 / 0.77; the whole corpus 0.98 / 0.76, 0.98 / 0.80 on commands.
#: A lint ceiling of 0.5 per 20 files means no false finding on a split of these sizes.
SPLIT_FLOORS = {
    "tuning": (0.97, 0.83, 0.89, 0.5),
    "held_out": (0.99, 0.83, 0.74, 0.5),
    "held_out_2": (0.94, 0.94, 0.88, 0.5),
    "held_out_3": (0.99, 0.99, 0.99, 0.5),
    "held_out_4": (0.99, 0.70, 0.77, 0.5),
    "held_out_5": (0.87, 0.69, 0.78, 0.5),
    "held_out_6": (0.95, 0.67, 0.64, 0.5),
    "held_out_7": (0.99, 0.55, 0.70, 0.5),
    "held_out_8": (0.99, 0.73, 0.84, 0.5),
    "held_out_9": (0.93, 0.66, 0.75, 0.5),
}
#: Files and repositories a held-out split has at least (the third came from one trial's three repositories).
SPLIT_SIZES = {"held_out": (10, 8), "held_out_2": (10, 8), "held_out_3": (6, 3), "held_out_4": (10, 8),
               "held_out_5": (12, 10), "held_out_6": (12, 10), "held_out_7": (12, 10), "held_out_8": (12, 10),
               "held_out_9": (12, 9)}
#: Splits outside the ratchet: their recall has not been worked up to the others', so the ratcheted floors
#: above hold on the other splits and adding an unseen evaluation neither fails them nor lowers them; the
#: issue's targets themselves hold on every file (`test_the_targets_hold_on_every_file`).
UNSEEN_SPLITS = {"held_out_4", "held_out_5", "held_out_6", "held_out_7", "held_out_8", "held_out_9",
                 "frozen"}


@pytest.fixture(scope="module")
def corpus():
    return bench.load_corpus()


@pytest.fixture(scope="module")
def fixed(corpus):
    """The files of the splits whose errors have been worked on: the whole-corpus floors hold here."""
    return [entry for entry in corpus if entry.get("split", bench.TUNING) not in UNSEEN_SPLITS]


@pytest.fixture(scope="module")
def scores(fixed):
    return bench.figures(bench.directive_scores(fixed))


def test_corpus_is_labelled_and_sourced(corpus):
    assert len(corpus) >= 25
    assert len({entry["ecosystem"] for entry in corpus}) >= 5
    for entry in corpus:
        assert entry["license"] and entry["commit"] and len(entry["commit"]) == 40, entry["file"]
        assert entry["bytes"] == len(entry["text"].encode("utf-8")), entry["file"]
        for label in entry["labels"].get("directives") or []:
            assert label["kind"] in bench.KINDS, (entry["file"], label)
            assert 1 <= label["line"] <= entry["text"].count("\n") + 1, (entry["file"], label)
            assert (label.get("argument") is None) == (label["kind"] == "verify"), (entry["file"], label)


def test_directive_precision_and_recall_floors(scores):
    precision, recall, *_ = scores["overall"]
    assert precision >= PRECISION_OVERALL_FLOOR
    assert recall >= RECALL_OVERALL_FLOOR
    precision, recall, *_ = scores["commands to run"]
    assert precision >= PRECISION_COMMANDS_FLOOR
    assert recall >= RECALL_COMMANDS_FLOOR


def test_the_targets_hold_on_every_training_file(corpus):
    training = [entry for entry in corpus if bench.in_split(entry, bench.TRAINING)]
    assert len(training) < len(corpus)  # the frozen split is scored apart
    figures = bench.figures(bench.directive_scores(training))
    assert figures["overall"][0] >= 0.95
    assert figures["commands to run"][1] >= 0.80
    lints = bench.lint_scores(training)
    assert bench.per_20_files(sum(len(s.false) for s in lints), len(lints)) <= 1.0


#: Floors under the frozen split, never fixed against: (commands precision, commands recall, prohibitions
#: precision, lint false findings per 20 files at most). Raised only when a scoring recorded in the corpus
#: README shows the figures above them.
FROZEN_FLOORS = (0.5, 0.35, 0.0, 22.0)


def test_frozen_split_floors(corpus):
    frozen = [entry for entry in corpus if entry.get("split") == bench.FROZEN]
    assert len(frozen) >= 20 and len({entry["repository"] for entry in frozen}) >= 16
    figures = bench.figures(bench.directive_scores(frozen))
    commands_precision, commands_recall, prohibitions_precision, lint_ceiling = FROZEN_FLOORS
    assert figures["commands to run"][0] >= commands_precision
    assert figures["commands to run"][1] >= commands_recall
    assert figures["prohibitions"][0] >= prohibitions_precision
    lints = bench.lint_scores(frozen)
    assert bench.per_20_files(sum(len(s.false) for s in lints), len(lints)) <= lint_ceiling


def test_lint_false_positive_ceiling(fixed):
    lints = bench.lint_scores(fixed)
    false = sum(len(s.false) for s in lints)
    assert bench.per_20_files(false, len(lints)) <= LINT_FALSE_PER_20_CEILING
    assert sum(len(s.true) for s in lints) >= LINT_TRUE_FLOOR


@pytest.mark.parametrize("split", sorted(SPLIT_FLOORS))
def test_split_floors(corpus, split):
    chosen = [entry for entry in corpus if entry.get("split", bench.TUNING) == split]
    if split != bench.TUNING:
        files, repositories = SPLIT_SIZES[split]
        assert len(chosen) >= files and len({entry["repository"] for entry in chosen}) >= repositories
    precision, recall, commands_recall, lint_ceiling = SPLIT_FLOORS[split]
    figures = bench.figures(bench.directive_scores(chosen))
    assert figures["overall"][0] >= precision
    assert figures["overall"][1] >= recall
    assert figures["commands to run"][1] >= commands_recall
    lints = bench.lint_scores(chosen)
    assert bench.per_20_files(sum(len(s.false) for s in lints), len(lints)) <= lint_ceiling


def test_every_file_is_in_a_split():
    sources = bench.json.loads((bench.CORPUS / "sources.json").read_text(encoding="utf-8"))
    assert {entry.get("split") for entry in sources} == {bench.TUNING, bench.HELD_OUT, bench.HELD_OUT_2, bench.HELD_OUT_3,
                                                             bench.HELD_OUT_4, bench.HELD_OUT_5, bench.HELD_OUT_6,
                                                             bench.HELD_OUT_7, bench.HELD_OUT_8, bench.HELD_OUT_9,
                                                             bench.FROZEN}


def test_split_names_put_known_splits_first():
    corpus = [{"split": name} for name in ("zeta", bench.HELD_OUT_2, bench.TUNING, bench.HELD_OUT)]
    assert bench.split_names(corpus) == [bench.TUNING, bench.HELD_OUT, bench.HELD_OUT_2, "zeta", bench.ALL]


def _item(kind, argument, line):
    return bench.Item(kind, argument, line)


def test_matching_normalises_backticks_and_spaces_within_line_slack():
    labels = [_item("run", "uv run  pytest", 10)]
    score = bench.score_file("f", labels, [_item("run", "`uv run pytest`", 12)])
    assert len(score.matched) == 1 and not score.false_positives and not score.false_negatives
    far = bench.score_file("f", labels, [_item("run", "uv run pytest", 13)])
    assert not far.matched and len(far.false_negatives) == 1
    other = bench.score_file("f", labels, [_item("run", "uv run pytest -x", 10)])
    assert len(other.false_positives) == 1 and len(other.false_negatives) == 1


def test_kind_must_agree_except_within_the_command_group():
    labels = [_item("test_command", "cargo test", 5)]
    found = [_item("run", "cargo test", 5)]
    wrong_kind = bench.score_file("f", labels, found)
    assert wrong_kind.false_positives and wrong_kind.false_negatives
    scored = [bench.FileScore("f", labels, found)]
    assert bench.precision_recall(scored, bench.COMMAND_KINDS, across=True) == (1, 1, 1)
    assert bench.precision_recall(scored, ("run",)) == (0, 1, 0)


def test_a_restated_directive_is_neither_right_nor_wrong():
    labels = [_item("test_command", "go test ./...", 26)]
    found = [_item("test_command", "go test ./...", 22), _item("test_command", "go test ./...", 26)]
    assert bench.precision_recall([bench.FileScore("f", labels, found)]) == (1, 1, 1)


def test_listing_tree_rebuilds_runner_files_the_lint_can_read():
    context = {"files": ["Makefile", "docs/Makefile", "src/a.py"],
               "runners": {"Makefile": ["test", "lint"], "docs/Makefile": None}, "gitignore": {}}
    tree = bench.ListingTree(context, {"AGENTS.md": "Run `make test`."})
    from instruction_gate.lint import projects
    assert projects.make_targets(tree.read("Makefile").decode()) == {"test", "lint"}
    assert projects.make_targets(tree.read("docs/Makefile").decode()) is None
    assert tree.read("src/a.py") == b"" and tree.read("missing.py") is None
    assert tree.read("AGENTS.md") == b"Run `make test`."


def test_bad_labels_are_reported_with_their_place(tmp_path):
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "a.txt").write_text("Run `make test`.\n", encoding="utf-8")
    (tmp_path / "sources.json").write_text(
        '[{"file": "files/a.txt"}, {"file": "files/b.txt"}]', encoding="utf-8")
    (tmp_path / "labels.yaml").write_text(
        "files/a.txt:\n  directives:\n    - {kind: runs, argument: make test, line: 1}\n", encoding="utf-8")
    with pytest.raises(bench.ConfigError) as raised:
        bench.load_corpus(tmp_path)
    text = str(raised.value)
    assert "labels.yaml::$['files/a.txt'].directives[0].kind" in text
    assert "$['files/b.txt']: no labels" in text
