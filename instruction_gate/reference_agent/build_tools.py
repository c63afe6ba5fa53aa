"""Runners of the other ecosystems under the command policy: Ruby (`bundle exec`, `rake`,
`rspec`), Elixir (`mix`), .NET (`dotnet`), the JVM (`gradle`/`./gradlew`, `mvn`/`./mvnw`).

One rule for every family: the subcommands, tasks or phases that run the project's own
(base-tree) build and tests are allowed, with only the options that shape output or pick among
the project's own targets. Options that name another build file, load code (init scripts,
`-r` requires, loggers, test adapters, settings files) or set properties inline (`-D`, `-P`,
`-p:`, `NAME=value`: properties and environment reach into every plugin's configuration) are
refused, whatever their spelling. `bundle exec` starts a command that is judged as if alone.
"""

from __future__ import annotations

from typing import Callable

#: Program -> the subcommands, tasks or phases it may run (None: any, named in the project's files).
ALLOWED: dict[str, set[str] | None] = {
    "bundle": {"exec", "install", "check"},
    "rake": None,
    "rspec": None,
    "mix": {"test", "compile", "format", "deps.get"},
    "dotnet": {"test", "build", "restore"},
    "gradle": {"test", "build", "check", "assemble", "clean"},
    "mvn": {"test", "verify", "package", "compile", "test-compile", "clean"},
}
#: Options that only shape output or pick the project's own targets; `=value` spellings count.
#: Every other option is refused (rake and rspec: see _REFUSED instead).
_OPTIONS = {
    "bundle": {"--quiet", "--frozen", "--deployment", "--local"},
    "mix": {"--cover", "--trace", "--stale", "--failed", "--seed", "--max-failures", "--only", "--include",
            "--exclude", "--warnings-as-errors", "--check-formatted", "--color", "--no-color", "--partitions"},
    "dotnet": {"-c", "--configuration", "-f", "--framework", "--no-restore", "--no-build", "-v", "--verbosity",
               "--nologo", "--filter", "--locked-mode"},
    "gradle": {"-q", "--quiet", "-i", "--info", "--offline", "--no-daemon", "--console", "--stacktrace",
               "--continue", "--parallel", "--build-cache", "-x", "--exclude-task", "--warning-mode"},
    "mvn": {"-q", "--quiet", "-B", "--batch-mode", "-o", "--offline", "-e", "--errors", "-pl", "--projects",
            "-am", "--also-make", "-T", "--threads", "-ntp", "--no-transfer-progress", "--fail-at-end", "-fae"},
}
#: Options of these programs that take a separate value.
_VALUED = {"--seed", "--max-failures", "--only", "--include", "--exclude", "--partitions", "-c", "--configuration",
           "-f", "--framework", "-v", "--verbosity", "--filter", "--console", "-x", "--exclude-task",
           "--warning-mode", "-pl", "--projects", "-T", "--threads"}
#: rake and rspec run any task or spec file of the project: only these options are refused.
_REFUSED = {
    "rake": ("-e", "--execute", "-E", "--execute-continue", "-p", "--execute-print", "-f", "--rakefile", "-r",
             "--require", "-I", "--libdir", "-R", "--rakelibdir", "-g", "--system"),
    "rspec": ("-r", "--require", "-I", "-O", "--options", "--init"),
}
#: The project's own wrappers: judged as the program they wrap.
WRAPPERS = {"gradlew": "gradle", "mvnw": "mvn"}


def _spelled(arg: str, option: str) -> bool:
    if option.startswith("--") or len(option) > 2:
        return arg == option or arg.startswith(option + "=")
    return arg.startswith(option) and not arg.startswith("--")


def refusal(family: str, argv: list[str], judge: Callable[[list[str]], str | None]) -> str | None:
    """Why `argv` (whose program is of `family`) must not run; `judge` decides on the command
    `bundle exec` starts."""
    if family in _REFUSED:
        found = next((a for a in argv[1:] for o in _REFUSED[family] if _spelled(a, o)), None)
        if found:
            return f"{found}: {family} would load code or configuration from elsewhere"
        assignment = next((a for a in argv[1:] if "=" in a and not a.startswith("-")), None)
        return f"{assignment}: variables on the command line reach the environment of every task" \
            if assignment and family == "rake" else None
    words, position, bad_option = [], 1, None
    while position < len(argv):
        arg = argv[position]
        if family == "bundle" and words == ["exec"]:
            return judge(argv[position:])
        if arg.startswith("-"):
            if arg.split("=", 1)[0] not in _OPTIONS[family]:
                bad_option = bad_option or arg
            position += 1 + (arg in _VALUED)
            continue
        words.append(arg)
        position += 1
    option = f"{bad_option}: {family} option not among those the reference agent passes" if bad_option else None
    if family in ("gradle", "mvn"):
        return option or _targets(family, words)  # an option's value is no task: name the option
    return _targets(family, words) or option  # `mix run -e …`: refused for `run`, whatever follows


def _targets(family: str, words: list[str]) -> str | None:
    allowed = ALLOWED[family] or set()
    if family == "bundle" and words[:1] == ["exec"]:
        return "bundle exec: no command to start"
    if family in ("gradle", "mvn"):
        # Every word is a task (`:app:test`) or phase; a plugin goal (`exec:exec`) is not one.
        bad = next((w for w in words if (w.rsplit(":", 1)[-1] if family == "gradle" else w) not in allowed), None)
        return f"{family} {bad} is not among the tasks the reference agent runs" if bad else None
    if not words:
        return None
    if words[0] not in allowed:
        return f"{family} {words[0]} is not among the subcommands the reference agent runs"
    if family in ("bundle", "mix") and words[0] in ("install", "deps.get") and len(words) > 1:
        return f"{family} {words[0]} {words[1]}: package names fetch code the project does not pin"
    return None
