"""Project runners the reference agent may use: `uv run`, `poetry run`, `hatch run`, `pdm run`,
`just`, `nox`.

What each may do, and why that is safe when the instructions are untrusted:
- `uv run`, `poetry run`, `pdm run`, `hatch run` start a command inside the project's own
  environment. The command they start is judged exactly as if it were given alone, so
  `uv run pytest` is allowed when `pytest` is and `uv run curl …` is refused like `curl …`.
  Options that add code from elsewhere (`--with`, `--from`, `--script`, `--index`, `--python`,
  which may download an interpreter, …) are refused: only the allowlisted ones below pass.
- `uv sync`, `poetry install`, `pdm install`/`sync` install what the project's lock file or
  pyproject (base tree, trusted) pins; package names on the command line are refused.
- `hatch run ENV:SCRIPT`, `hatch test`, `hatch fmt`, `just RECIPE`, `nox -s SESSION` run scripts,
  recipes and sessions defined in the project's own files; options that point them at another
  file or override its variables (`--justfile`, `--set`, `--noxfile`) are refused.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Callable

#: Runner -> subcommands allowed besides `run` (which starts another command).
SUBCOMMANDS = {
    "uv": {"run", "sync"},
    "poetry": {"run", "install", "check"},
    "pdm": {"run", "install", "sync"},
    "hatch": {"run", "test", "fmt"},
}
#: Options that only choose among the project's own environments or make the run reproducible.
_OPTIONS = {
    "uv": {"--frozen", "--locked", "--no-sync", "--offline", "--all-extras", "--extra", "--group", "--dev",
           "--no-dev", "--all-groups", "--package", "--all-packages", "-q", "--quiet", "-v", "--verbose",
           "--no-project", "--only-group", "--no-group", "--only-dev", "--no-default-groups"},
    "poetry": {"-q", "--quiet", "-v", "--verbose", "--no-interaction", "-n", "--with", "--only", "--all-extras",
               "--sync", "--no-root", "-E", "--extras"},
    "pdm": {"-q", "--quiet", "-v", "--verbose", "-G", "--group", "--dev", "--prod", "--frozen-lockfile"},
    "hatch": {"-q", "--quiet", "-v", "--verbose", "-e", "--env"},
}
#: Options of a runner that take a value (the value is not the command to start).
_VALUED = {"--extra", "--group", "--only-group", "--no-group", "--package", "--with", "--only", "-E", "--extras", "-G", "-e", "--env"}
_TASK_RUNNER_REFUSED = {"just": ("--justfile", "-f", "--working-directory", "-d", "--set", "--shell",
                                 "--shell-arg", "--command", "-c", "--dotenv-path", "--dotenv-filename"),
                        "nox": ("--noxfile", "-f", "--force-python", "--extra-pythons", "--envdir")}


def project_scripts(repo_root: Path) -> set[str]:
    """Script names the project's pyproject.toml defines for hatch (`ENV:NAME` and `NAME` of the
    default environment) and pdm; the file is the base tree's, never the candidate's instructions."""
    try:
        data = tomllib.loads((repo_root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return set()
    tool = data.get("tool") if isinstance(data.get("tool"), dict) else {}
    names: set[str] = set()
    envs = (tool.get("hatch") or {}).get("envs") or {}
    for env, spec in envs.items() if isinstance(envs, dict) else ():
        for script in (spec.get("scripts") or {}) if isinstance(spec, dict) else ():
            names.add(f"{env}:{script}")
            if env == "default":
                names.add(script)
    names.update(f"pdm:{s}" for s in ((tool.get("pdm") or {}).get("scripts") or {}))
    return names


def refusal(argv: list[str], judge: Callable[[list[str]], str | None], scripts: set[str]) -> str | None:
    """Why a runner command must not run; `judge` decides on the command a `run` starts, and
    `scripts` (see `project_scripts`) are the project's own script names."""
    name = argv[0]
    if name in _TASK_RUNNER_REFUSED:
        found = next((a for a in argv[1:] for o in _TASK_RUNNER_REFUSED[name]
                      if a == o or a.startswith(o + "=") or (len(o) == 2 and a.startswith(o) and a[:2] != "--")), None)
        if found:
            return f"{found}: {name} would read another file or take overridden code"
        if name == "just" and any("=" in a and not a.startswith("-") for a in argv[1:]):
            return f"{name}: variables on the command line can replace a recipe's commands"
        return None
    position = _skip_options(argv, 1, name)
    if isinstance(position, str):
        return position
    if position >= len(argv):
        return None  # `uv --version` and the like
    sub = argv[position]
    if sub not in SUBCOMMANDS[name]:
        return f"{name} {sub} is not among the subcommands the reference agent runs"
    position = _skip_options(argv, position + 1, name)
    if isinstance(position, str):
        return position
    rest = argv[position + (position < len(argv) and argv[position] == "--"):]
    if sub != "run":
        names = [a for a in rest if not a.startswith("-")]
        return f"{name} {sub} {names[0]}: package names fetch code the project does not pin" if names else None
    if not rest:
        return f"{name} run: no command to start"
    if (name == "hatch" and rest[0] in scripts) or (name == "pdm" and f"pdm:{rest[0]}" in scripts):
        return None  # a script the project's own pyproject.toml defines
    return judge(rest)


def _skip_options(argv: list[str], position: int, name: str) -> int | str:
    """Index of the first non-option from `position`, or why an option is refused."""
    while position < len(argv) and argv[position].startswith("-") and argv[position] != "--":
        if argv[position].split("=", 1)[0] not in _OPTIONS[name]:
            return f"{argv[position]}: {name} option not among those the reference agent passes"
        position += 1 + (argv[position] in _VALUED)
    return position
