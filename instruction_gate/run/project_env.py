"""A check environment for a Python project, from the project's own dependency files.

What the checks need is the project's dependencies, not the project: the workspace's code comes
first on the path (the manifest's `check_env` PYTHONPATH), so an installed copy never stands in
for the agent's work (validate-tasks' import probe would call such a task vacuous).

The environment is built from the base commit's files (never the working tree), once per
dependency epoch: its key is the dependency files' content and the interpreter, so it is reused
until a lock or requirement changes. With a lock (uv.lock) the lock pins it; without one,
packages are resolved as of the base commit's date (`uv --exclude-newer`), so an old base does
not get today's releases.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from instruction_gate import git, proc
from instruction_gate.errors import NotEvaluatedError

#: Files that decide the environment; their content is the epoch's key.
DEPENDENCY_FILES = re.compile(r"^(pyproject\.toml|setup\.py|setup\.cfg|uv\.lock|poetry\.lock|pdm\.lock|pytest\.ini|tox\.ini|"
                              r"(dev-|test-)?requirements[^/]*\.(txt|in)|requirements/[^/]+\.txt|"
                              r"(tests?|testing)/requirements[^/]*\.txt)$")
#: Options a project's pytest configuration may pass on every run, and the plugin that reads them:
#: without it every check ends "unrecognized arguments" (exit 4).
PYTEST_PLUGINS = {r"--cov\b": "pytest-cov", r"--timeout\b": "pytest-timeout", r"(^|\s)-n\s|--numprocesses\b": "pytest-xdist",
                  r"--benchmark": "pytest-benchmark", r"--reruns\b": "pytest-rerunfailures", r"--mypy\b": "pytest-mypy",
                  r"--doctest-glob|--doctest-modules": "", r"--asyncio-mode|asyncio_mode": "pytest-asyncio"}
BUILDER_VERSION = "3"
STEP_TIMEOUT_SECONDS = 900


@dataclass(frozen=True)
class EnvPlan:
    key: str
    tooling: str  #: uv-lock | pyproject | requirements | none
    files: tuple[str, ...]
    date: str  #: the base commit's committer date, ISO 8601


def default_cache() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "instruction-gate" / "check-envs"


def plan(repo: Path, base: str) -> EnvPlan:
    listed = git.split_z(git.out("ls-tree", "-r", "-z", "--name-only", base, cwd=repo))
    files = tuple(sorted(p for p in listed if DEPENDENCY_FILES.match(p)))
    digest = hashlib.sha256(f"{BUILDER_VERSION}\0{sys.version_info[:2]}\0".encode())
    for path in files:
        digest.update(path.encode() + b"\0" + (git.blob(f"{base}:{path}", repo) or b"") + b"\0")
    tooling = ("uv-lock" if "uv.lock" in files else "pyproject" if "pyproject.toml" in files or "setup.py" in files
               else "requirements" if files else "none")
    date = git.out("show", "-s", "--format=%cI", base, cwd=repo).strip()
    return EnvPlan(digest.hexdigest()[:16], tooling, files, date)


def _step(argv: list[str], cwd: Path, env: dict[str, str], what: str) -> None:
    result = proc.run(argv, cwd, env=env, timeout=STEP_TIMEOUT_SECONDS, tail_bytes=6000)
    if not result.ok:
        why = "timed out" if result.timed_out else result.start_error or f"exit {result.exit_code}"
        tail = "\n".join((result.stderr or result.stdout).strip().splitlines()[-15:])
        raise NotEvaluatedError(f"check environment: {what} failed ({why}): `{' '.join(argv)}`\n{tail}")


def _groups(pyproject: Path) -> list[str]:
    import tomllib  # only here: Python 3.11's stdlib TOML reader

    try:
        data = tomllib.loads(pyproject.read_text())
    except (OSError, ValueError) as exc:
        raise NotEvaluatedError(f"check environment: {pyproject.name}: not readable TOML: {exc}") from None
    return sorted(data.get("dependency-groups") or {})


def plugins_named(source: Path) -> list[str]:
    """pytest plugins the project's own pytest configuration needs (its addopts and settings)."""
    text = ""
    for name in ("pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"):
        if (source / name).is_file():
            text += (source / name).read_text(errors="replace") + "\n"
    return [package for pattern, package in PYTEST_PLUGINS.items() if re.search(pattern, text)]


def build(repo: Path, base: str, cache: Path | None = None) -> tuple[Path, EnvPlan, bool]:
    """The environment for `base` (built, or reused), its plan, and whether it was reused."""
    env_plan = plan(repo, base)
    target = (cache or default_cache()) / env_plan.key
    if (target / ".complete").exists():
        return target, env_plan, True
    shutil.rmtree(target, ignore_errors=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "UV_"))}
    # The exported tree has no .git: version plugins (setuptools-scm, hatch-vcs) would refuse to build.
    env["SETUPTOOLS_SCM_PRETEND_VERSION"] = "0.0.0"
    with tempfile.TemporaryDirectory(prefix="ig-env-src-") as source_dir:
        source = Path(source_dir)
        archive = proc.run(["git", "archive", "--format=tar", base], repo, tail_bytes=None, raw_stdout=True)
        if not archive.ok:
            raise NotEvaluatedError(f"check environment: git archive {base} failed: {archive.stderr.strip()[-300:]}")
        unpacked = proc.run(["tar", "-x", "-C", str(source)], source, stdin=archive.stdout_bytes or b"")
        if not unpacked.ok:
            raise NotEvaluatedError(f"check environment: unpacking {base} failed: {unpacked.stderr.strip()[-300:]}")
        _step([sys.executable, "-m", "venv", str(target)], source, env, "creating the virtualenv")
        python = str(target / "bin" / "python")
        _step([python, "-m", "pip", "install", "-q", "uv"], source, env, "installing uv")
        uv = str(target / "bin" / "uv")
        if env_plan.tooling == "uv-lock":
            _step([uv, "sync", "--frozen", "--all-extras", "--all-groups", "--no-install-project", "--inexact"],
                  source, {**env, "UV_PROJECT_ENVIRONMENT": str(target)}, "uv sync --frozen (from uv.lock)")
        else:
            pinned = [uv, "pip", "install", "--python", python, "--exclude-newer", env_plan.date]
            if env_plan.tooling == "pyproject" and (source / "pyproject.toml").exists():
                # The dependencies, never the project: an installed copy would stand in for the
                # workspace's code wherever the path does not put the workspace first.
                groups = _groups(source / "pyproject.toml")
                _step([*pinned, "-r", "pyproject.toml", "--all-extras", *(a for g in groups for a in ("--group", g))],
                      source, env, "installing the project's dependencies (pyproject.toml)")
            elif env_plan.tooling == "pyproject":  # setup.py alone declares them only by running it
                _step([*pinned, "."], source, env, "installing the project with its dependencies (setup.py)")
            for requirements in (f for f in env_plan.files if f.endswith(".txt")):
                _step([*pinned, "-r", requirements], source, env, f"installing {requirements}")
        plugins = sorted({p for p in plugins_named(source) if p})
        _step([uv, "pip", "install", "--python", python, "pytest", *plugins], source, env,
              "installing pytest" + (f" and the plugins its configuration names ({', '.join(plugins)})" if plugins else ""))
    (target / ".complete").write_text(f"{env_plan.tooling} {' '.join(env_plan.files)}\n")
    return target, env_plan, False
