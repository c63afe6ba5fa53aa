"""Built-in rule kinds that read the trajectory: commands, their order and exit codes, policy events."""

from __future__ import annotations

from dataclasses import dataclass

from instruction_gate import globs
from instruction_gate.rules.bundle import Command, RunBundle
from instruction_gate.rules.command_match import command_matches
from instruction_gate.rules.model import MissingEvidence, Outcome, RuleInfo, Target, Verdict

SATISFIED = Verdict(Outcome.SATISFIED)


def in_scope(bundle: RunBundle, when_edited: tuple[str, ...]) -> bool:
    """The shared optional precondition: the rule applies only when a matching path was edited."""
    return not when_edited or bool(globs.filter_paths(bundle.edited(), when_edited))


def edit_positions(bundle: RunBundle) -> list[int]:
    """Positions of reported edits; missing evidence when files changed but no edit was reported."""
    if not bundle.file_changes and bundle.edited():
        raise MissingEvidence("the adapter reported no file_change events for the edited files")
    return [f.position for f in bundle.file_changes]


def not_completed(matched: list[Command], pattern: str) -> str:
    """"`pytest -q` matched 'pytest' but did not complete (pytest exit 4: usage or collection
    error)": the last matching command and why; how many others failed alike."""
    last = matched[-1]
    text = " ".join(last.text.split())
    text = text if len(text) <= 80 else text[:79] + "…"
    more = f"; nor did {len(matched) - 1} earlier matching command(s)" if len(matched) > 1 else ""
    return f"`{text}` matched {pattern!r} but did not complete ({last.unfinished(pattern)}){more}"


@dataclass(frozen=True)
class CommandRequired:
    """Some tool command that ran to completion matches `pattern` (a Python regex, searched): a
    command refused, declined, not found (127) or not executable (126) was asked for but never
    ran; one killed, timed out or a test runner that ran no test (completion.py) did not complete."""

    info: RuleInfo
    pattern: str
    when_edited: tuple[str, ...] = ()

    def precondition(self, bundle: RunBundle) -> list[Target]:
        return [Target("run")] if in_scope(bundle, self.when_edited) else []

    def postcondition(self, bundle: RunBundle, target: Target) -> Verdict:
        matched = [c for c in bundle.commands if c.ran and command_matches(self.pattern, c.text)]
        if any(c.unfinished(self.pattern) is None for c in matched):
            return SATISFIED
        if matched:
            return Verdict(Outcome.VIOLATED, not_completed(matched, self.pattern))
        return Verdict(Outcome.VIOLATED, f"no command matched {self.pattern!r}")


@dataclass(frozen=True)
class CommandForbidden:
    """No tool command matches `pattern`; each command the agent ran is a target."""

    info: RuleInfo
    pattern: str

    def precondition(self, bundle: RunBundle) -> list[Target]:
        return [Target(f"command #{c.position}", c) for c in bundle.commands]

    def postcondition(self, bundle: RunBundle, target: Target) -> Verdict:
        text = target.value.text
        return Verdict(Outcome.VIOLATED, f"`{text}` matches {self.pattern!r}") if command_matches(self.pattern, text) else SATISFIED


@dataclass(frozen=True)
class CommandOrder:
    """A command matching `command` runs to completion (as for CommandRequired) after the last
    edit (or after the last command matching `after_command`); with `require_success` it must
    also exit 0."""

    info: RuleInfo
    command: str
    after_command: str | None = None
    require_success: bool = False
    when_edited: tuple[str, ...] = ()

    def precondition(self, bundle: RunBundle) -> list[Target]:
        if not in_scope(bundle, self.when_edited):
            return []
        if self.after_command is None:
            anchors, label = edit_positions(bundle), "the last edit"
        else:
            anchors = [c.position for c in bundle.commands if command_matches(self.after_command, c.text)]
            label = f"the last command matching {self.after_command!r}"
        return [Target(label, max(anchors))] if anchors else []

    def postcondition(self, bundle: RunBundle, target: Target) -> Verdict:
        later = [c for c in bundle.commands if c.position > target.value and c.ran and command_matches(self.command, c.text)]
        if not later:
            return Verdict(Outcome.VIOLATED, f"no command matching {self.command!r} after it")
        finished = [c for c in later if c.unfinished(self.command) is None]
        if not finished:
            return Verdict(Outcome.VIOLATED, not_completed(later, self.command))
        if not self.require_success or any(c.exit_code == 0 for c in finished):
            return SATISFIED
        if all(c.exit_code is None for c in finished):
            raise MissingEvidence("the adapter reported no exit codes")
        return Verdict(Outcome.VIOLATED, f"{self.command!r} ran after it but did not exit 0")


def same_file(read: str, edited: str) -> bool:
    """Reads may name a path relative to the agent's cwd; accept a match on the path suffix."""
    return read == edited or edited.endswith("/" + read) or read.endswith("/" + edited)


@dataclass(frozen=True)
class ReadBeforeEdit:
    """Each existing file the agent modifies (matching `globs`, default all) was read before its first edit."""

    info: RuleInfo
    globs: tuple[str, ...] = ()

    def precondition(self, bundle: RunBundle) -> list[Target]:
        edit_positions(bundle)
        created = set(bundle.created or {})
        first: dict[str, int] = {}
        for change in bundle.file_changes:
            if change.change == "add" or change.path in created:
                continue
            first.setdefault(change.path, change.position)
        paths = [p for p in first if not self.globs or globs.matches_any(p, self.globs)]
        return [Target(p, (p, first[p])) for p in paths]

    def postcondition(self, bundle: RunBundle, target: Target) -> Verdict:
        path, edited_at = target.value
        if any(same_file(read, path) and position < edited_at for read, position in bundle.reads()):
            return SATISFIED
        return Verdict(Outcome.VIOLATED, "edited without being read first")


@dataclass(frozen=True)
class ApprovalBefore:
    """Each guarded action (a command matching `command`, an edit of a path matching `paths`)
    comes after a policy event named `event`."""

    info: RuleInfo
    event: str = "approval_requested"
    command: str | None = None
    paths: tuple[str, ...] = ()

    def precondition(self, bundle: RunBundle) -> list[Target]:
        targets = []
        if self.command is not None:
            targets += [Target(f"`{c.text}`", c.position) for c in bundle.commands if command_matches(self.command, c.text)]
        if self.paths:
            targets += [Target(f"edit of {f.path}", f.position) for f in bundle.file_changes
                        if globs.matches_any(f.path, self.paths)]
            if not bundle.file_changes and globs.filter_paths(bundle.edited(), self.paths):
                raise MissingEvidence("guarded paths changed but no file_change events were reported")
        return targets

    def postcondition(self, bundle: RunBundle, target: Target) -> Verdict:
        if any(e.name == self.event and e.position < target.value for e in bundle.policy_events):
            return SATISFIED
        return Verdict(Outcome.VIOLATED, f"no {self.event!r} event before it")


@dataclass(frozen=True)
class EventRequired:
    """The agent emits a policy event named `event`."""

    info: RuleInfo
    event: str
    when_edited: tuple[str, ...] = ()

    def precondition(self, bundle: RunBundle) -> list[Target]:
        return [Target("run")] if in_scope(bundle, self.when_edited) else []

    def postcondition(self, bundle: RunBundle, target: Target) -> Verdict:
        if any(e.name == self.event for e in bundle.policy_events):
            return SATISFIED
        return Verdict(Outcome.VIOLATED, f"no {self.event!r} event")


@dataclass(frozen=True)
class InstructionSourceRequired:
    """The agent reports `path` among the instruction files it loaded."""

    info: RuleInfo
    path: str
    when_edited: tuple[str, ...] = ()

    def precondition(self, bundle: RunBundle) -> list[Target]:
        return [Target("run")] if in_scope(bundle, self.when_edited) else []

    def postcondition(self, bundle: RunBundle, target: Target) -> Verdict:
        return SATISFIED if self.path in bundle.sources() else Verdict(Outcome.VIOLATED, f"{self.path} not loaded")
