"""The environment checks run in: the agent's scrubbed environment, the project's environment
directory (`--check-env-dir`), and the suite's `check_env`/`check_path`.

The gate's own virtualenv stays the harness's: with a check environment directory, neither
checks nor the agent's commands see the harness interpreter on PATH; without one they do
(the embedded example's checks use the harness's pytest).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Mapping

from instruction_gate.errors import ConfigError
from instruction_gate.run import adapter
from instruction_gate.run.check_sandbox import CheckSandbox
from instruction_gate.run.sandbox import fresh_dir
from instruction_gate.run.pytest_report import read_counts, runs_pytest, unproven, with_report
from instruction_gate.suite.check_settings import entries_in_changed_files
from instruction_gate.suite.manifest import Manifest, Task


def checked_env_dir(value: Path | None, flag: str = "--check-env-dir") -> Path | None:
    """The project's environment directory, absolute; exit 2 when it is not one."""
    if value is None:
        return None
    path = value.expanduser().absolute()
    if not path.is_dir():
        what = "is not a directory" if path.exists() else "no such directory"
        raise ConfigError(f"{flag}: {value}: {what}; prepare the project's environment in an earlier step "
                          "(e.g. `uv sync --frozen --no-install-project`) and name its directory")
    if not (path / "bin").is_dir():
        raise ConfigError(f"{flag}: {value}: has no bin/ directory; name a virtualenv or an install prefix")
    return path


def agent_path(env: Mapping[str, str], env_dir: Path | None) -> str:
    """PATH of the agent's commands and of the checks (before the suite's `check_path`)."""
    if env_dir is None:
        return adapter.child_path(env)
    return os.pathsep.join([str(env_dir / "bin"), env.get("PATH", os.defpath)])


def _fill(value: str, workspace: Path, env_dir: Path | None) -> str:
    value = value.replace("{workspace}", str(workspace))
    return value.replace("{env_dir}", str(env_dir)) if env_dir is not None else value


def check_environment(base: Mapping[str, str], task: Task, workspace: Path, env_dir: Path | None) -> dict[str, str]:
    """`base` (already scrubbed of secrets) + env dir + the task's check settings."""
    env = dict(base)
    if env_dir is not None:
        env["VIRTUAL_ENV"] = str(env_dir)
    env.update((name, _fill(value, workspace, env_dir)) for name, value in task.check_env)
    entries = []
    for entry in task.check_path:
        filled = _fill(entry, workspace, env_dir)
        entries.append(filled if os.path.isabs(filled) else str(workspace / filled))
    env["PATH"] = os.pathsep.join([*entries, agent_path(base, env_dir)])
    return env


#: Bytes of each check's stdout and stderr kept in the run record.
CHECK_TAIL_BYTES = 4000


def run_checks(task: Task, workspace: Path, env: dict[str, str], confinement: CheckSandbox = CheckSandbox(),
               home: Path | None = None, writable: tuple[Path, ...] = (),
               fresh: Callable[[], object] | None = None, reports: Path | None = None) -> list[dict[str, Any]]:
    """Every check of `task` in `workspace / task.cwd` with `env` (`check_environment`), each in
    `confinement` (`home`: the run's private check home); one record each (`checks` of run.json).

    `fresh` lays the workspace out again before every check after the first: a check runs the
    agent's code, which must not be able to rewrite what a later check runs (the hidden suite
    included); `home` is emptied again too. `reports` is a directory outside the workspace for
    pytest's reports (pytest_report.py), emptied before each pytest check.
    """
    env = confinement.environment(env, home)
    records = []
    for number, argv in enumerate(task.checks):
        if number:
            # Nothing one check leaves reaches the next: not the tree, not the home (an `.npmrc`
            # planted there would steer a later npm check), not the reports.
            if fresh is not None:
                fresh()
            if home is not None:
                fresh_dir(home)
        report = None
        if reports is not None and runs_pytest(argv):
            report = fresh_dir(reports) / f"check-{number}.xml"
        records.append(_one(argv, workspace, task, env, confinement, home, writable, report))
    return records


def passed(check: dict[str, Any]) -> bool:
    """Whether one check record counts as passing (records before `passed` existed: exit 0 in time)."""
    return bool(check.get("passed", check["exit_code"] == 0 and not check["timed_out"]))


def _one(argv: tuple[str, ...], workspace: Path, task: Task, env: dict[str, str], confinement: CheckSandbox,
         home: Path | None, writable: tuple[Path, ...], report: Path | None) -> dict[str, Any]:
    command = list(argv)
    if report is not None:
        command = with_report(argv, report)
        writable = (*writable, report.parent)
    result = confinement.run(command, workspace / task.cwd, workspace, env, task.check_timeout_seconds,
                             CHECK_TAIL_BYTES, network=task.check_network, home=home, writable=writable)
    stderr = result.stderr if result.start_error is None else result.start_error
    exit_code = None if result.timed_out else result.exit_code
    record = {"argv": list(argv), "exit_code": exit_code, "timed_out": result.timed_out,
              "duration_seconds": round(result.duration_seconds, 3), "stdout_tail": result.stdout,
              "stderr_tail": stderr, "passed": exit_code == 0}
    if report is not None:
        counts = read_counts(report)
        record["tests"] = counts.as_record() if counts is not None else None
        why = unproven(counts) if exit_code == 0 else None
        if why:
            record["passed"], record["not_passed_because"] = False, why
    return record


def refuse_bad_settings(manifest: Manifest, env_dir: Path | None, changed: tuple[str, ...],
                        env_dir_known: bool = True) -> None:
    """Refuse (exit 2) check settings that cannot work or would run the candidate's bytes.
    `env_dir_known=False` (the static contract, which takes no --check-env-dir) skips {env_dir}."""
    label, problems = str(manifest.path), []
    defaults = manifest.raw.get("defaults") or {}
    holders = [("$.defaults", defaults)] + [(f"$.tasks[{i}]", raw) for i, raw in enumerate(manifest.raw["tasks"])]
    for where, raw in holders:
        entries = tuple(raw.get("check_path") or ())
        for i, entry, path in entries_in_changed_files(entries, changed):
            problems.append(f"{label}::{where}.check_path[{i}]: {entry!r} holds {path}, which the candidate changes")
        if env_dir is None and env_dir_known:
            values = [(f"check_env.{k}", v) for k, v in (raw.get("check_env") or {}).items()]
            values += [(f"check_path[{i}]", e) for i, e in enumerate(entries)]
            problems += [f"{label}::{where}.{field}: uses {{env_dir}} but no --check-env-dir was given"
                         for field, value in values if "{env_dir}" in value]
    if problems:
        raise ConfigError(f"{label}: check environment settings refused", problems)
