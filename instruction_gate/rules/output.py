"""Built-in rule kinds that read the change and the final state: paths, diff size, commits, created files."""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from instruction_gate import globs
from instruction_gate.rules.bundle import RunBundle
from instruction_gate.rules.model import MissingEvidence, Outcome, RuleInfo, Target, Verdict
from instruction_gate.rules.trajectory import SATISFIED, in_scope


@dataclass(frozen=True)
class PathsForbidden:
    """No edited path matches `globs`; each edited path is a target."""

    info: RuleInfo
    globs: tuple[str, ...]

    def precondition(self, bundle: RunBundle) -> list[Target]:
        return [Target(p, p) for p in bundle.edited()]

    def postcondition(self, bundle: RunBundle, target: Target) -> Verdict:
        return Verdict(Outcome.VIOLATED, "forbidden path") if globs.matches_any(target.value, self.globs) else SATISFIED


@dataclass(frozen=True)
class PathsRequired:
    """For each glob, some edited path matches it (e.g. a changelog fragment)."""

    info: RuleInfo
    globs: tuple[str, ...]
    when_edited: tuple[str, ...] = ()

    def precondition(self, bundle: RunBundle) -> list[Target]:
        return [Target(g, g) for g in self.globs] if in_scope(bundle, self.when_edited) else []

    def postcondition(self, bundle: RunBundle, target: Target) -> Verdict:
        return SATISFIED if globs.filter_paths(bundle.edited(), (target.value,)) else Verdict(Outcome.VIOLATED, "no edited path matches")


@dataclass(frozen=True)
class DiffSize:
    """Caps on the change: files, added lines, deleted lines, added plus deleted lines."""

    info: RuleInfo
    max_files: int | None = None
    max_additions: int | None = None
    max_deletions: int | None = None
    max_changed_lines: int | None = None

    def precondition(self, bundle: RunBundle) -> list[Target]:
        return [Target("diff")] if bundle.edited() else []

    def postcondition(self, bundle: RunBundle, target: Target) -> Verdict:
        if bundle.additions is None or bundle.deletions is None:
            raise MissingEvidence("line counts of the change are unknown")
        measured = {"files": len(bundle.edited()), "additions": bundle.additions, "deletions": bundle.deletions,
                    "changed_lines": bundle.additions + bundle.deletions}
        over = [f"{name} {measured[name]} > {cap}" for name, cap in
                (("files", self.max_files), ("additions", self.max_additions), ("deletions", self.max_deletions),
                 ("changed_lines", self.max_changed_lines)) if cap is not None and measured[name] > cap]
        return Verdict(Outcome.VIOLATED, ", ".join(over)) if over else SATISFIED


@dataclass(frozen=True)
class CommitMessage:
    """Each commit the agent made has a subject matching `pattern` and at most `max_subject_length` characters."""

    info: RuleInfo
    pattern: str | None = None
    max_subject_length: int | None = None

    def precondition(self, bundle: RunBundle) -> list[Target]:
        return [Target(f"commit {c.sha[:12]}", c) for c in bundle.commit_list()]

    def postcondition(self, bundle: RunBundle, target: Target) -> Verdict:
        subject = target.value.subject
        if self.pattern is not None and not re.search(self.pattern, subject):
            return Verdict(Outcome.VIOLATED, f"subject {subject!r} does not match {self.pattern!r}")
        if self.max_subject_length is not None and len(subject) > self.max_subject_length:
            return Verdict(Outcome.VIOLATED, f"subject is {len(subject)} characters (max {self.max_subject_length})")
        return SATISFIED


def created_targets(bundle: RunBundle, patterns: tuple[str, ...], text_only: bool = False) -> list[Target]:
    files = bundle.created_files()
    chosen = [p for p in files if not patterns or globs.matches_any(p, patterns)]
    if text_only:  # binary files have no line endings; unreadable ones stay (undetermined)
        chosen = [p for p in chosen if files[p] is None or b"\0" not in files[p]]
    return [Target(p, p) for p in chosen]


def content(bundle: RunBundle, path: str) -> bytes:
    data = bundle.created_files()[path]
    if data is None:
        raise MissingEvidence("file too large or unreadable")
    return data


@dataclass(frozen=True)
class FileEncoding:
    """Each created file (matching `globs`) decodes as `encoding`; a UTF-8 BOM only with `allow_bom`."""

    info: RuleInfo
    encoding: str = "utf-8"
    allow_bom: bool = False
    globs: tuple[str, ...] = ()

    def precondition(self, bundle: RunBundle) -> list[Target]:
        return created_targets(bundle, self.globs)

    def postcondition(self, bundle: RunBundle, target: Target) -> Verdict:
        data = content(bundle, target.value)
        if not self.allow_bom and data.startswith(codecs.BOM_UTF8):
            return Verdict(Outcome.VIOLATED, "starts with a byte-order mark")
        try:
            data.decode(self.encoding)
        except UnicodeDecodeError as exc:
            return Verdict(Outcome.VIOLATED, f"not {self.encoding} at byte {exc.start}")
        return SATISFIED


@dataclass(frozen=True)
class LineEndings:
    """Each created text file (matching `globs`) uses only `style` line endings (lf or crlf)."""

    info: RuleInfo
    style: str = "lf"
    globs: tuple[str, ...] = ()

    def precondition(self, bundle: RunBundle) -> list[Target]:
        return created_targets(bundle, self.globs, text_only=True)

    def postcondition(self, bundle: RunBundle, target: Target) -> Verdict:
        data = content(bundle, target.value)
        crlf = data.count(b"\r\n")
        lone_lf, lone_cr = data.count(b"\n") - crlf, data.count(b"\r") - crlf
        wrong = crlf + lone_cr if self.style == "lf" else lone_lf + lone_cr
        return Verdict(Outcome.VIOLATED, f"{wrong} line endings are not {self.style}") if wrong else SATISFIED


@dataclass(frozen=True)
class Keyword:
    """Keywords (literal) or a regex `pattern` must be present in, or absent from, each created
    file matching `globs` (scope `created_files`) or the agent's final message (scope `final_message`)."""

    info: RuleInfo
    present: bool
    keywords: tuple[str, ...] = ()
    pattern: str | None = None
    ignore_case: bool = False
    scope: str = "created_files"
    globs: tuple[str, ...] = ()

    def precondition(self, bundle: RunBundle) -> list[Target]:
        if self.scope == "final_message":
            return [Target("final message", None)]
        return created_targets(bundle, self.globs)

    def postcondition(self, bundle: RunBundle, target: Target) -> Verdict:
        if target.value is None:
            text = bundle.response()
        else:
            text = content(bundle, target.value).decode("utf-8", errors="replace")
        flags = re.IGNORECASE if self.ignore_case else 0
        needles = [re.escape(k) for k in self.keywords] + ([self.pattern] if self.pattern else [])
        found = [n for n in needles if re.search(n, text, flags)]
        if self.present:
            missing = [n for n in needles if n not in found]
            return Verdict(Outcome.VIOLATED, f"missing {', '.join(missing)}") if missing else SATISFIED
        return Verdict(Outcome.VIOLATED, f"contains {', '.join(found)}") if found else SATISFIED
