"""Adapter options: `adapter_options` from the request, overridden by the adapter's own flags."""

from __future__ import annotations

import argparse
import shlex
import sys
from dataclasses import dataclass
from typing import Iterable, Mapping

from instruction_gate.errors import ConfigError
from instruction_gate.console import say

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class OptionSpec:
    """One option an adapter understands; it doubles as the flag `--key-with-dashes`."""

    key: str
    help: str


@dataclass(frozen=True)
class Options:
    """Typed access to string options; bad values raise ConfigError naming the key."""

    values: Mapping[str, str]

    def _problem(self, key: str, message: str) -> ConfigError:
        return ConfigError("invalid adapter option", [f"adapter_options::$.{key}: {message}"])

    def text(self, key: str, default: str | None = None) -> str | None:
        value = self.values.get(key)
        return value if value not in (None, "") else default

    def number(self, key: str, default: float | None = None) -> float | None:
        value = self.text(key)
        if value is None:
            return default
        try:
            return float(value)
        except ValueError:
            raise self._problem(key, f"expected a number, got {value!r}") from None

    def integer(self, key: str, default: int | None = None) -> int | None:
        value = self.text(key)
        if value is None:
            return default
        if not value.isdigit():
            raise self._problem(key, f"expected a non-negative integer, got {value!r}")
        return int(value)

    def flag(self, key: str, default: bool | None = None) -> bool | None:
        value = self.text(key)
        if value is None:
            return default
        if value.lower() in _TRUE | _FALSE:
            return value.lower() in _TRUE
        raise self._problem(key, f"expected true or false, got {value!r}")

    def words(self, key: str) -> tuple[str, ...]:
        """A value split with POSIX shell rules (extra arguments)."""
        value = self.text(key)
        try:
            return tuple(shlex.split(value)) if value else ()
        except ValueError as exc:
            raise self._problem(key, str(exc)) from None

    def names(self, key: str, default: Iterable[str] = ()) -> tuple[str, ...]:
        """A comma- or space-separated list."""
        value = self.text(key)
        if value is None:
            return tuple(default)
        return tuple(part for part in value.replace(",", " ").split() if part)

    def prices(self, key: str) -> tuple[float, float, float] | None:
        """`INPUT,CACHED_INPUT,OUTPUT` USD per million tokens, or None when not given."""
        parts = self.names(key)
        if not parts:
            return None
        try:
            prices = tuple(float(p) for p in parts)
        except ValueError:
            prices = ()
        if len(prices) != 3 or min(prices) < 0:
            raise self._problem(key, "expected INPUT,CACHED_INPUT,OUTPUT in USD")
        return prices  # type: ignore[return-value]

    def choice(self, key: str, allowed: Iterable[str], default: str) -> str:
        value = self.text(key, default)
        allowed = tuple(allowed)
        if value not in allowed:
            raise self._problem(key, f"expected one of {', '.join(allowed)}, got {value!r}")
        return value  # type: ignore[return-value]


def parse_adapter_flags(prog: str, specs: Iterable[OptionSpec], argv: list[str]) -> dict[str, str]:
    """Options given on the adapter's command line: `--key VALUE` or `-o key=value`."""
    specs = tuple(specs)
    parser = argparse.ArgumentParser(prog=prog, description="Reads one adapter request on stdin.")
    for spec in specs:
        parser.add_argument("--" + spec.key.replace("_", "-"), dest=spec.key, help=spec.help)
    parser.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                        help="any option, as in the runner's --adapter-option")
    args = parser.parse_args(argv)
    values: dict[str, str] = {}
    for pair in args.option:
        key, sep, value = pair.partition("=")
        if not sep:
            parser.error(f"--option expects KEY=VALUE, got {pair!r}")
        values[key] = value
    values.update({s.key: getattr(args, s.key) for s in specs if getattr(args, s.key) is not None})
    return values


def merged_options(request_options: Mapping[str, str], flags: Mapping[str, str],
                   specs: Iterable[OptionSpec], agent: str) -> Options:
    """Request options overridden by flags; unknown keys are reported, not fatal (wrappers pass
    their options through)."""
    merged = {**request_options, **flags}
    known = {spec.key for spec in specs}
    unknown = sorted(set(merged) - known)
    if unknown:
        say(f"{agent}: ignoring unknown options: {', '.join(unknown)}", file=sys.stderr)
    return Options(merged)
