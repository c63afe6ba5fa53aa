#!/usr/bin/env python3
"""The reference agent's directive grammar and the lint, scored against hand labels of real files.

The corpus (`benchmarks/directive_corpus/`) holds AGENTS.md / CLAUDE.md files from public,
permissively licensed projects (`sources.json`: repository, path, commit, license), a trimmed
view of each repository at that commit (`context/`: the files the instruction text can name,
the task runners' target names, the .gitignore patterns), and `labels.yaml`: what an agent
should take from each file, by hand. Prints precision and recall per directive kind, the files
with the most wrong directives, and the lint's true and false findings per 20 files; each figure
for each split of sources.json (the tuning files, each held-out evaluation) and all together.
Offline; nothing from the corpus is executed. Usage: python benchmarks/directive_corpus.py [-v]
"""

from __future__ import annotations

import argparse
import json
import posixpath
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from instruction_gate.errors import EXIT_USAGE, ConfigError  # noqa: E402
from instruction_gate.lint import projects  # noqa: E402
from instruction_gate.lint.chains import chains  # noqa: E402
from instruction_gate.lint.context import LintContext  # noqa: E402
from instruction_gate.lint.engine import lint  # noqa: E402
from instruction_gate.lint.imports import imports  # noqa: E402
from instruction_gate.lint.model import Finding  # noqa: E402
from instruction_gate.lint.policy import LintPolicy  # noqa: E402
from instruction_gate.lint.tree import directories  # noqa: E402
from instruction_gate.reference_agent import directives  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from figures import record  # noqa: E402

CORPUS = Path(__file__).resolve().parent / "directive_corpus"
KINDS = ("run", "test_command", "verify", "forbid_command", "protect_path", "approve_command",
         "approve_edit", "read")
#: "Commands to run": a command labelled as the test command and found as a plain `run` (or the
#: reverse) is still the right command to run, so this group matches across the two kinds.
COMMAND_KINDS = ("run", "test_command")
#: "Prohibitions": commands not to run and paths not to edit.
PROHIBITION_KINDS = ("forbid_command", "protect_path")
LINE_SLACK = 2  #: a found directive may sit this many lines from its label (wrapped sentences)
TUNING, HELD_OUT, HELD_OUT_2, HELD_OUT_3 = "tuning", "held_out", "held_out_2", "held_out_3"
HELD_OUT_4, HELD_OUT_5, HELD_OUT_6, HELD_OUT_7 = "held_out_4", "held_out_5", "held_out_6", "held_out_7"
HELD_OUT_8 = "held_out_8"
HELD_OUT_9 = "held_out_9"
FROZEN = "frozen"  #: held out for good: scored once per change, never fixed against
ALL = "all"
TRAINING = "training"  #: every split but the frozen one
SPLIT_NOTE = ("tuning: the files the grammar and the lint were developed on. held_out .. held_out_8: files of "
              "eight later evaluations, each labelled before the grammar or the lint was run on it; their first figures "
              "(README) were the unseen-data ones, and the errors they showed have since been worked on by category")


@dataclass(frozen=True)
class Item:
    """A directive, found or labelled, reduced to what is compared."""

    kind: str
    argument: str | None
    line: int
    text: str = ""


@dataclass
class FileScore:
    """One corpus file: its labels, what the grammar found, and how they pair up."""

    file: str
    labels: list[Item]
    found: list[Item]
    matched: list[tuple[Item, Item]] = field(default_factory=list)  #: (label, found)
    false_positives: list[Item] = field(default_factory=list)
    false_negatives: list[Item] = field(default_factory=list)


def normalise(argument: str | None) -> str | None:
    """Compare arguments the way a reader would: no backticks, single spaces, no trailing dot."""
    if argument is None:
        return None
    return re.sub(r"\s+", " ", argument.replace("`", "")).strip().rstrip(".").strip()


def _pairs(labels: list[Item], found: list[Item], same_kind) -> tuple[list, list, list, list]:
    """Greedy one-to-one pairing on (kind, argument), nearest line first, within the slack.

    Returns (matched pairs, wrong, missed labels, restated). A found directive that repeats a
    labelled one from another line of the same file (a file saying "run the tests" twice) is
    restated: neither right nor wrong, so it counts on neither side.
    """
    free = list(labels)
    matched, unmatched = [], []
    for item in found:
        candidates = [lab for lab in free if same_kind(lab.kind, item.kind)
                      and normalise(lab.argument) == normalise(item.argument)
                      and abs(lab.line - item.line) <= LINE_SLACK]
        if candidates:
            best = min(candidates, key=lambda lab: abs(lab.line - item.line))
            free.remove(best)
            matched.append((best, item))
        else:
            unmatched.append(item)
    restated = [item for item in unmatched if any(
        same_kind(lab.kind, item.kind) and normalise(lab.argument) == normalise(item.argument) for lab in labels)]
    wrong = [item for item in unmatched if item not in restated]
    return matched, wrong, free, restated


def score_file(file: str, labels: list[Item], found: list[Item]) -> FileScore:
    matched, fps, fns, _ = _pairs(labels, found, lambda a, b: a == b)
    return FileScore(file, labels, found, matched, fps, fns)


def _label_problems(where: str, labels: object) -> list[str]:
    if labels is None:
        return []
    if not isinstance(labels, dict):
        return [f"{where}: expected a mapping with `directives` and `lint_expected`"]
    problems = []
    for i, d in enumerate(labels.get("directives") or []):
        at = f"{where}.directives[{i}]"
        if not isinstance(d, dict) or d.get("kind") not in KINDS:
            problems.append(f"{at}.kind: one of {', '.join(KINDS)}")
        elif not isinstance(d.get("line"), int) or d["line"] < 1:
            problems.append(f"{at}.line: a 1-based line number")
        elif (d.get("argument") is None) != (d["kind"] == "verify"):
            problems.append(f"{at}.argument: required for every kind but verify (and only there absent)")
    for i, e in enumerate(labels.get("lint_expected") or []):
        if not isinstance(e, dict) or not isinstance(e.get("rule"), str) or not isinstance(e.get("line"), int):
            problems.append(f"{where}.lint_expected[{i}]: needs `rule` (IG...) and `line`")
    return problems


def load_corpus(root: Path = CORPUS) -> list[dict]:
    """sources.json entries, each with its text and its labels.

    Raises ConfigError listing every problem (`file::$.path: message`): an unlabelled or
    missing fixture, a label of an unknown kind, without a line or argument.
    """
    sources_path, labels_path = root / "sources.json", root / "labels.yaml"
    try:
        sources = json.loads(sources_path.read_text(encoding="utf-8"))
        labels = yaml.safe_load(labels_path.read_text(encoding="utf-8")) or {}
    except (OSError, ValueError, yaml.YAMLError) as error:
        raise ConfigError(f"{root}: cannot read the corpus: {error}") from None
    problems = []
    for i, entry in enumerate(sources):
        if entry.get("file") not in labels:
            problems.append(f"{labels_path}::$[{entry.get('file')!r}]: no labels for this sources.json entry")
            continue
        problems += _label_problems(f"{labels_path}::$[{entry['file']!r}]", labels[entry["file"]])
        if not (root / entry["file"]).is_file():
            problems.append(f"{sources_path}::$[{i}].file: {entry['file']} does not exist")
    if problems:
        raise ConfigError(f"{root}: the corpus is inconsistent", problems)
    for entry in sources:
        entry["text"] = (root / entry["file"]).read_text(encoding="utf-8")
        entry["labels"] = labels[entry["file"]] or {}
        entry["root"] = root
    return sources


def labelled(entry: dict) -> list[Item]:
    return [Item(d["kind"], d.get("argument"), d["line"]) for d in entry["labels"].get("directives") or []]


def extracted(entry: dict) -> list[Item]:
    """What the reference agent's grammar takes from the file, as the agent would read it."""
    return [Item(d.kind, d.argument, d.line, d.text) for d in directives.parse(entry["text"], entry["path"])]


def directive_scores(corpus: list[dict]) -> list[FileScore]:
    return [score_file(e["file"], labelled(e), extracted(e)) for e in corpus]


def precision_recall(scores: list[FileScore], kinds: tuple[str, ...] = KINDS,
                     across: bool = False) -> tuple[int, int, int]:
    """(true positives, found, labelled) over `kinds`; `across` pairs any kind of the group.
    Restated directives are not counted as found (see `_pairs`)."""
    tp = found = wanted = 0
    for score in scores:
        labels = [lab for lab in score.labels if lab.kind in kinds]
        items = [item for item in score.found if item.kind in kinds]
        same = (lambda a, b: True) if across else (lambda a, b: a == b)
        matched, wrong, _, _ = _pairs(labels, items, same)
        tp, found, wanted = tp + len(matched), found + len(matched) + len(wrong), wanted + len(labels)
    return tp, found, wanted


def ratio(numerator: int, denominator: int) -> float:
    """Precision of nothing found is 1 (nothing wrong was said); recall of nothing wanted is 1."""
    return numerator / denominator if denominator else 1.0


def figures(scores: list[FileScore]) -> dict[str, tuple[float, float, int, int, int]]:
    """Per kind, for the command group and overall: (precision, recall, tp, found, labelled)."""
    out = {}
    groups = [(k, (k,), False) for k in KINDS] + [("commands to run", COMMAND_KINDS, True),
                                                   ("prohibitions", PROHIBITION_KINDS, False),
                                                   ("overall", KINDS, False)]
    for name, kinds, across in groups:
        tp, found, wanted = precision_recall(scores, kinds, across)
        out[name] = (ratio(tp, found), ratio(tp, wanted), tp, found, wanted)
    return out


class ListingTree:
    """A repository at one commit, seen through the corpus's trimmed listing of it.

    Task runner files are rebuilt from their recorded target names, so the lint reads the same
    names it would read from the real Makefile / package.json / tox / nox files; an entry
    recorded as null (names a static reader cannot know) becomes a file the reader gives up on.
    """

    label = "corpus"

    def __init__(self, context: dict, texts: dict[str, str]):
        self._texts = texts
        self._runners = context["runners"]
        self._ignores = context["gitignore"]
        self._links = context.get("links", {})
        self._files = frozenset(context["files"]) | frozenset(texts) | frozenset(self._links)
        self._directories = directories(self._files)

    def files(self) -> frozenset[str]:
        return self._files

    def link_target(self, path: str) -> str | None:
        return self._links.get(path)

    def kind(self, path: str) -> str | None:
        if path in self._links:
            return "symlink"
        if path in self._files:
            return "file"
        return "directory" if path in self._directories else None

    def read(self, path: str) -> bytes | None:
        if path in self._texts:
            return self._texts[path].encode("utf-8")
        if path not in self._files:
            return None
        if path in self._ignores:
            return "\n".join(self._ignores[path]).encode("utf-8")
        if path in self._runners:
            return _runner_file(posixpath.basename(path), self._runners[path]).encode("utf-8")
        return b""  # present; its contents are not part of the corpus


def _runner_file(name: str, names: list[str] | None) -> str:
    if name in projects.MAKEFILE_NAMES:
        return "include generated.mk\n" if names is None else "".join(f"{n}:\n" for n in names)
    if name == "package.json":
        return "[" if names is None else json.dumps({"scripts": {n: "" for n in names}})
    if name == "noxfile.py":
        return "(" if names is None else "".join(f"@nox.session(name={n!r})\ndef s{i}(session): ...\n"
                                                  for i, n in enumerate(names))
    if name in ("tox.ini",):
        return "[" if names is None else "".join(f"[testenv:{n}]\n" for n in names)
    # tox.toml / pyproject.toml [tool.tox]
    return "=" if names is None else "[tool.tox]\nenv_list = [" + ", ".join(json.dumps(n) for n in names) + "]\n"


def lint_file(entry: dict) -> list[Finding]:
    """The lint on this one instruction file, in its repository's (trimmed) tree."""
    slug = entry["file"].split("/")[1]
    context = json.loads((entry["root"] / "context" / f"{slug}.json").read_text(encoding="utf-8"))
    tree = ListingTree(context, {entry["path"]: entry["text"]})
    policy = LintPolicy(project=context.get("repository", ""))
    directory = posixpath.dirname(entry["path"])
    ctx = LintContext(tree, {entry["path"]: entry["text"]},
                      chains(tree, [entry["path"]], {"", directory}, policy.byte_caps), policy,
                      imports(tree, [entry["path"]]))
    return lint(ctx)


@dataclass
class LintScore:
    file: str
    true: list[Finding]
    false: list[Finding]
    missed: list[dict]  #: labelled true findings the lint did not report


def lint_scores(corpus: list[dict]) -> list[LintScore]:
    """Each finding is true when `lint_expected` lists its rule within the line slack."""
    out = []
    for entry in corpus:
        expected = list(entry["labels"].get("lint_expected") or [])
        true, false = [], []
        for finding in lint_file(entry):
            hit = next((e for e in expected if e["rule"] == finding.rule_id
                        and abs(e["line"] - finding.line) <= LINE_SLACK), None)
            if hit is not None:
                expected.remove(hit)
                true.append(finding)
            else:
                false.append(finding)
        out.append(LintScore(entry["file"], true, false, expected))
    return out


def split_names(corpus: list[dict]) -> list[str]:
    """The corpus's splits in a fixed order (tuning first), then `all`."""
    present = {e.get("split", TUNING) for e in corpus}
    known = (TUNING, HELD_OUT, HELD_OUT_2, HELD_OUT_3, HELD_OUT_4, HELD_OUT_5, HELD_OUT_6, HELD_OUT_7, HELD_OUT_8,
             HELD_OUT_9, FROZEN)
    return [n for n in known if n in present] + sorted(present - set(known)) + [ALL]


def per_20_files(count: int, files: int) -> float:
    return 20 * count / files if files else 0.0


def in_split(entry: dict, name: str) -> bool:
    """`name` is one split, `all`, or `training` (every split but the frozen one)."""
    split = entry.get("split", TUNING)
    return name == ALL or split == name or (name == TRAINING and split != FROZEN)


def print_table(title: str, names: list[str], corpus: list[dict], scores: list, lints: list) -> None:
    """Precision, recall and counts per kind, and lint false findings per 20 files, one column per split."""
    table = {name: figures([s for s, e in zip(scores, corpus) if in_split(e, name)]) for name in names}
    print(title)
    print(f"{'':<18}" + "".join(f"{name:^32}" for name in names))
    print(f"{'kind':<18}" + f"{'precision':>10}{'recall':>8}{'tp/found/lab':>14}" * len(names))
    for kind in table[names[0]]:
        row = "".join(f"{p:>10.2f}{r:>8.2f}{f'{tp}/{found}/{wanted}':>14}" for p, r, tp, found, wanted
                      in (table[name][kind] for name in names))
        print(f"{kind:<18}{row}")
    lint_row = []
    for name in names:
        chosen = [s for s, e in zip(lints, corpus) if in_split(e, name)]
        false = sum(len(s.false) for s in chosen)
        found_true = sum(len(s.true) for s in chosen)
        expected = found_true + sum(len(s.missed) for s in chosen)
        lint_row.append(f"{per_20_files(false, len(chosen)):>10.1f}{f'({false} false, {found_true}/{expected} true)':>22}")
    print(f"{'lint per 20 files':<18}" + "".join(lint_row) + "\n")


def record_figures(corpus: list[dict], scores: list, lints: list) -> None:
    """The headline figures for the benchmark report, training and held-out apart."""
    for name, label in ((TRAINING, "training"), (FROZEN, "held-out")):
        chosen = [s for s, e in zip(scores, corpus) if in_split(e, name)]
        if not chosen:
            continue
        table = figures(chosen)
        record(f"directives {label}: precision, commands to run", table["commands to run"][0], "ratio", "higher")
        record(f"directives {label}: recall, commands to run", table["commands to run"][1], "ratio", "higher")
        record(f"directives {label}: precision, prohibitions", table["prohibitions"][0], "ratio", "higher")
        chosen_lints = [s for s, e in zip(lints, corpus) if in_split(e, name)]
        record(f"lint {label}: false findings per 20 files",
               per_20_files(sum(len(s.false) for s in chosen_lints), len(chosen_lints)), "findings", "lower")


def _show(item: Item) -> str:
    arg = "" if item.argument is None else f" `{item.argument}`"
    return f"{item.kind}{arg} (line {item.line})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="every file's misses and wrong directives")
    parser.add_argument("--worst", type=int, default=8, help="files listed with their false positives")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="corpus folder (default: %(default)s)")
    parser.add_argument("--training-only", action="store_true",
                        help="leave the frozen split out (while working on the grammar: it is scored once per change)")
    args = parser.parse_args()
    try:
        corpus = load_corpus(args.corpus)
    except ConfigError as error:
        print(error, file=sys.stderr)
        return EXIT_USAGE
    if args.training_only:
        corpus = [entry for entry in corpus if entry.get("split", TUNING) != FROZEN]
    scores = directive_scores(corpus)
    lints = lint_scores(corpus)
    splits = split_names(corpus)
    print(f"directive corpus: {len(corpus)} files from {len({e['repository'] for e in corpus})} repositories, "
          f"{sum(len(s.labels) for s in scores)} labelled directives")
    for name in splits[:-1]:
        chosen = [e for e in corpus if e.get("split", TUNING) == name]
        print(f"  {name}: {len(chosen)} files from {len({e['repository'] for e in chosen})} repositories")
    print("\n" + SPLIT_NOTE + "\n")
    frozen = [e.get("split", TUNING) == FROZEN for e in corpus]
    training = [name for name in splits if name not in (FROZEN, ALL)] + [TRAINING]
    print_table("TRAINING figures (every split the grammar has been fixed against)", training, corpus, scores, lints)
    if any(frozen):
        print_table("HELD-OUT figures (the frozen split: scored, never fixed against)", [FROZEN], corpus, scores, lints)
    print("\ntargets on held-out text: precision >= 0.95 on commands and prohibitions, recall >= 0.6 on commands "
          "to run, lint false findings <= 1 per 20 files\n")
    record_figures(corpus, scores, lints)
    # Errors are listed for the training splits only: reading the frozen split's errors is fixing against it.
    open_lints = [s for s, f in zip(lints, frozen) if not f]
    held_out = [s for s, e in zip(scores, corpus) if e.get("split", TUNING) not in (TUNING, FROZEN)]
    tuning = [s for s, e in zip(scores, corpus) if e.get("split", TUNING) == TUNING]
    worst = sorted(tuning, key=lambda s: (-len(s.false_positives), -len(s.false_negatives), s.file))
    listed = held_out + (worst if args.verbose else worst[:args.worst])
    for score in listed:
        if not (score.false_positives or score.false_negatives):
            continue
        print(f"{score.file}: {len(score.false_positives)} wrong, {len(score.false_negatives)} missed, "
              f"{len(score.matched)} right")
        for item in score.false_positives:
            print(f"  wrong   {_show(item)}  <- {item.text[:100]}")
        for item in score.false_negatives if args.verbose or score in held_out else score.false_negatives[:3]:
            print(f"  missed  {_show(item)}")
    true, false = sum(len(s.true) for s in open_lints), sum(len(s.false) for s in open_lints)
    missed = sum(len(s.missed) for s in open_lints)
    print(f"\nlint (training splits): {true} true and {false} false findings on {len(open_lints)} files "
          f"({per_20_files(false, len(open_lints)):.1f} false per 20 files; target <= 1), "
          f"{missed} labelled problems not reported")
    for score in open_lints:
        for finding in score.false:
            print(f"  false {finding.rule_id} {score.file}:{finding.line}  {finding.message[:110]}")
        for finding in score.true:
            print(f"  true  {finding.rule_id} {score.file}:{finding.line}  {finding.message[:110]}")
        for expected in score.missed:
            print(f"  missed {expected['rule']} {score.file}:{expected['line']}  {expected.get('why', '')[:110]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
