"""The pinned real agent CLIs (`make live-cli` installs them) and a runner for live scenarios.

Without the binaries these tests skip with the reason printed; with `CI` set they fail, so a
broken install can never pass as a green run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

MODULES = Path(__file__).resolve().parent / "node_modules"
BINARIES = {
    "codex": MODULES / "@openai/codex/bin/codex.js",
    "codex-0.169": MODULES / "codex-0.169/bin/codex.js",  # the example workflow's pin
    # The platform package's binary, called directly: the wrapper's postinstall wants node 22.
    "claude": MODULES / "@anthropic-ai/claude-code-linux-x64/claude",
    "gemini": MODULES / "@google/gemini-cli/bundle/gemini.js",
    # What the opencode-ai wrapper's install script would link as `opencode` on linux-x64.
    "opencode": MODULES / "opencode-linux-x64/bin/opencode",
    # The platform package's binary, called directly: the npm loader only finds and starts it.
    "copilot": MODULES / "@github/copilot-linux-x64/copilot",
}


def _binary(name: str) -> Path:
    path = BINARIES[name]
    if not path.is_file():
        message = (f"the pinned {name} CLI is not installed at {path}; run `make live-cli` "
                   f"(npm ci in tests/live_cli)")
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    # Resolved: a worktree may link node_modules from another checkout, and the agent sandbox
    # shows the link's target, not the link.
    return path.resolve()


@pytest.fixture(scope="session")
def codex_bin() -> Path:
    return _binary("codex")


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    return _binary("claude")


@pytest.fixture(scope="session")
def gemini_bin() -> Path:
    return _binary("gemini")


@pytest.fixture(scope="session")
def opencode_bin() -> Path:
    return _binary("opencode")


@pytest.fixture(scope="session")
def copilot_bin() -> Path:
    return _binary("copilot")


@pytest.fixture(scope="session")
def codex_0169_bin() -> Path:
    return _binary("codex-0.169")


def broker_options(agent: str, upstream_url: str, binary) -> dict[str, str]:
    """`--adapter-option`s running `agent`'s pinned CLI through adapters/broker against a scripted provider."""
    options = {"wrap": agent, "upstream_url": upstream_url, "binary": str(binary)}
    if agent == "codex":
        options.update({"model": "scripted", "sandbox": "danger-full-access"})
    elif agent == "gemini":
        options["model"] = "gemini-scripted"
    elif agent in ("opencode", "copilot"):
        options["model"] = "scripted"
    return options


def assert_usage_matches_the_provider(result: dict, requests: list, prices_per_mtok: tuple[float, float, float]) -> None:
    """The result's tokens are the sums of what the scripted provider answered, each call once,
    and its cost those tokens at the given prices (uncached input, cached input, output)."""
    steps = [r.step for r in requests]
    assert (result["input_tokens"], result["cached_input_tokens"], result["output_tokens"]) == (
        sum(s.input_tokens for s in steps), sum(s.cached_tokens for s in steps), sum(s.output_tokens for s in steps))
    fresh, cached, output = prices_per_mtok
    uncached = result["input_tokens"] - result["cached_input_tokens"]
    assert result["provider_cost_usd"] == pytest.approx(
        (uncached * fresh + result["cached_input_tokens"] * cached + result["output_tokens"] * output) / 1e6)
