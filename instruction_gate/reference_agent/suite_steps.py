"""Steps shaped like the test suite (`make test`, `pytest`), settled once a whole file is read."""

from __future__ import annotations

from dataclasses import replace

from instruction_gate.reference_agent.kinds import SUITE_SHAPED, Directive


def settle(directives: list[Directive]) -> list[Directive]:
    """A step shaped like the suite is the test command only when the file names none in so many words
    ("Run the tests with `CI=1 npm test`" wins over "Always run `pytest`"); otherwise it is a step, or,
    when it is that named command, the order to run the tests and see them pass."""
    named = {d.argument for d in directives if d.kind == "test_command"}
    settled, taken, verify_lines = [], bool(named), set()
    for d in directives:
        if d.kind == SUITE_SHAPED and d.argument in named:
            d = replace(d, kind="verify", argument=None)  # "Then run `mix test` at the end": the tests, run to pass
        elif d.kind == SUITE_SHAPED:
            d = replace(d, kind="run" if taken else "test_command")
            taken = True
        if d.kind != "verify" or d.line not in verify_lines:
            settled.append(d)
        if d.kind == "verify":
            verify_lines.add(d.line)
    return settled
