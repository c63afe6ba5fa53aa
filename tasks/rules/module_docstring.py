"""Custom rule: every Python module the agent creates opens with a docstring.

The shop's style guide asks for a one-line summary at the top of each module. Loaded by the
harness from the base commit (see README, "Policy rules and constraint checklists").
Parameters: `globs` limits the modules checked (default: every created `*.py` file).
"""

import ast

from instruction_gate import globs as glob_match
from instruction_gate.rules import MissingEvidence, Outcome, Target, Verdict

CATEGORY = "documentation"
EVIDENCE_TYPE = "output"
EXACT = True  # "starts with a docstring" is decided by the parser, not approximated


def precondition(bundle, params):
    patterns = tuple(params.get("globs") or ("**/*.py",))
    return [Target(path, path) for path in bundle.created_files() if glob_match.matches_any(path, patterns)]


def postcondition(bundle, target, params):
    data = bundle.created_files()[target.value]
    if data is None:
        raise MissingEvidence("file too large or unreadable")
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        raise MissingEvidence("not valid Python") from None
    if ast.get_docstring(tree):
        return Verdict(Outcome.SATISFIED)
    return Verdict(Outcome.VIOLATED, "no module docstring")


CASES = [
    {"name": "documented module", "expect": "satisfied", "params": {"globs": ["src/**"]},
     "bundle": {"created": {"src/shop/discounts.py": '"""Discounts."""\n\nRATE = 1\n'}}},
    {"name": "module without docstring", "expect": "violated",
     "bundle": {"created": {"src/shop/discounts.py": "RATE = 1\n", "src/shop/ok.py": '"""Fine."""\n'}}},
    {"name": "only non-Python files created", "expect": "inapplicable",
     "bundle": {"created": {"docs/discounts.md": "# Discounts\n"}}},
    {"name": "created modules outside the checked globs", "expect": "inapplicable", "params": {"globs": ["src/**"]},
     "bundle": {"created": {"tests/unit/test_discounts.py": "def test(): pass\n"}}},
    {"name": "unparsable module", "expect": "undetermined", "bundle": {"created": {"src/broken.py": "def (:\n"}}},
]
