"""What a run's sandbox shows read-only besides the system: the harness, the adapter's files,
agent CLIs on PATH, and what the user adds with --sandbox-readable."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Iterable, Sequence

import instruction_gate
from instruction_gate.console import say
from instruction_gate.run.sandbox import SYSTEM_PATHS


def harness_paths() -> tuple[Path, ...]:
    """What the harness's own Python needs: its interpreter prefixes and the package."""
    paths = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent.parent,
             Path(instruction_gate.__file__).resolve().parent}
    return tuple(sorted(p for p in paths if p.exists()))


def search_paths(path_variable: str, protected: Sequence[Path]) -> tuple[Path, ...]:
    """PATH directories outside the system, so agent CLIs installed there (npm, pipx) start.

    A `node_modules/.bin` brings its whole `node_modules` (its entries are links into it). A
    directory holding any `protected` path (the checkout, the suite) is left out: it would
    show the agent what the sandbox hides.
    """
    found: set[Path] = set()
    for entry in path_variable.split(os.pathsep):
        if not os.path.isabs(entry) or not os.path.isdir(entry):
            continue
        path = Path(entry).resolve()
        if path.name == ".bin" and path.parent.name == "node_modules":
            path = path.parent
        if path.parts[:2] in {("/", top.strip("/")) for top in SYSTEM_PATHS} or path == Path("/"):
            continue  # already visible
        if not any(p.resolve().is_relative_to(path) for p in protected):
            found.add(path)
    return tuple(sorted(found))


def run_paths(args, argv: Sequence[str], options: Iterable[str], path_variable: str,
              protected: Sequence[Path]) -> tuple[Path, ...]:
    """Everything an evaluation's runs see read-only besides the system and their workspace.

    What the configuration names (adapter argv and options, --sandbox-readable) is never shown
    when it lies in the --out directory, a stage's temporary directory, or the checkout and
    suite (`protected`), whatever the configuration says: it is left out with a message. In
    the checkout only the adapter's program file, a vendored harness (`adapters/` files beside
    `instruction_gate/`) and npm's `node_modules` are.
    """
    named = adapter_paths(argv, options) + tuple(Path(p).resolve() for p in args.sandbox_readable)
    # The adapter's own program file may live in the suite (a reference design keeps adapters
    # there): that file alone is shown, never its directory.
    programs = {Path(a).resolve() for a in argv if os.path.isabs(a) and os.path.isfile(a)}
    out = getattr(args, "out", None)
    hidden = {"the --out directory": [Path(out).resolve()] if out else [],
              "the checkout or suite": [Path(p).resolve() for p in protected]}
    kept = []
    for path in named:
        where = next((what for what, roots in hidden.items() if any(path.is_relative_to(r) for r in roots)), None)
        if where is None and _in_stage(path, getattr(args, "temp_dir", None)):
            where = "the harness's temporary directory"
        if where and not (where == "the checkout or suite" and (_vendored_harness(path) or path in programs)):
            say(f"sandbox: {path} is not shown to agents: it is inside {where}", file=sys.stderr)
            continue
        kept.append(path)
    return harness_paths() + tuple(kept) + search_paths(path_variable, protected)


def adapter_paths(argv: Sequence[str], options: Iterable[str] = ()) -> tuple[Path, ...]:
    """Absolute paths of files the trusted adapter configuration names, read-only in the sandbox.

    Files only: a directory named in argv or options is not shown (it could be a temporary
    directory holding every task's hidden checks; --sandbox-readable names one explicitly). The
    few directories a CLI needs are named here: the `node_modules` tree an npm-installed file
    lives in, and the `instruction_gate` package beside an `adapters/` script, so a harness
    vendored in the suite's own directory does not expose the suite next to it.
    """
    found: set[Path] = set()
    options = list(options)
    for value in [*argv, *options]:
        if not os.path.isabs(value) or not os.path.isfile(value):
            continue
        path = Path(value).resolve()
        if path.parts[1:2] in (("proc",), ("sys",), ("dev",)):
            continue  # the kernel's views: the sandbox has its own, and a host one would leak the runner's
        # An npm-installed CLI (`node_modules/.bin/codex` -> `@openai/codex/bin/codex.js`) loads its
        # platform package from the same node_modules: show the whole tree, as search_paths does.
        modules = next((parent for parent in path.parents if parent.name == "node_modules"), None)
        found.add(modules or path)
        if path.parent.name == "adapters" and (path.parent.parent / "instruction_gate").is_dir():
            found.add(path.parent.parent / "instruction_gate")
            # An adapter that wraps another by name (`adapters/broker` with `wrap=codex`) starts
            # that sibling script: show it too, and nothing else of the adapters directory.
            found.update(path.parent / name for name in options
                         if "/" not in name and name and (path.parent / name).is_file())
    return tuple(sorted(found))


def _vendored_harness(path: Path) -> bool:
    """What an agent CLI in the checkout needs: an `adapters/` file beside `instruction_gate/`,
    that package, or an npm `node_modules` tree."""
    if path.name == "node_modules":
        return True
    harness = path.parent if path.name == "instruction_gate" else path.parent.parent
    return (path.name == "instruction_gate" or path.parent.name == "adapters") and \
        (harness / "instruction_gate").is_dir() and (harness / "adapters").is_dir()


def _in_stage(path: Path, temp_dir: Path | None) -> bool:
    """Inside a stage directory (`instruction-gate-*` in the temporary root, ours or another's)."""
    root = Path(temp_dir or tempfile.gettempdir()).resolve()
    if not path.is_relative_to(root) or path == root:
        return False
    return path.relative_to(root).parts[0].startswith("instruction-gate-")


def check_env_paths(env_dir: Path | None) -> tuple[Path, ...]:
    """The check environment and the interpreter it was made from (a venv's `bin/python` links
    to it; `pyvenv.cfg` names its `home`), so the project's Python starts inside the sandbox.
    Directories the system mounts already cover are left out."""
    if env_dir is None:
        return ()
    found = {env_dir}
    for link in (env_dir / "bin").glob("python*"):
        found.add(link.resolve().parent.parent)
    try:
        config = (env_dir / "pyvenv.cfg").read_text(encoding="utf-8", errors="replace")
    except OSError:
        config = ""
    found.update(Path(line.split("=", 1)[1].strip()).parent for line in config.splitlines()
                 if line.split("=", 1)[0].strip() == "home" and "=" in line)
    return tuple(sorted(p for p in found if p.is_absolute() and p.exists() and not _system(p)))


def _system(path: Path) -> bool:
    return path == Path("/") or any(path.is_relative_to(top) for top in SYSTEM_PATHS)
