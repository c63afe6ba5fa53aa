"""Catch checks that import the project from outside the validation workspace.

An editable install (`pip install -e .`, `uv sync`) or a copy in site-packages makes `import pkg`
load the CI checkout instead of the agent's tree: the checks then pass or fail whatever the agent
did. During task validation a `sitecustomize` module is put first on the checks' PYTHONPATH; at
interpreter exit it lists every top-level module named like a package of the workspace whose
file lies outside the workspace. It then hands over to the project's own `sitecustomize`, if any.
Python checks only; a check started with `python -I` or `-S` skips it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

#: Written as sitecustomize.py into a private directory; reads its settings from the environment.
PROBE_SOURCE = '''\
import atexit, json, os, sys


def _instruction_gate_probe():
    out, root = os.environ.get("INSTRUCTION_GATE_IMPORT_PROBE"), os.environ.get("INSTRUCTION_GATE_WORKSPACE")
    names = set(filter(None, os.environ.get("INSTRUCTION_GATE_PACKAGES", "").split(",")))
    if not out or not root:
        return
    root, found = os.path.realpath(root), {}
    for name in names & set(sys.modules):
        module = sys.modules[name]
        where = getattr(module, "__file__", None) or next(iter(getattr(module, "__path__", None) or []), None)
        if where and os.path.commonpath([os.path.realpath(where), root]) != root:
            found[name] = os.path.realpath(where)
    if found:
        with open(out, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(found) + "\\n")


atexit.register(_instruction_gate_probe)
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
_probe = sys.modules.pop("sitecustomize", None)
try:
    import sitecustomize  # the project's own, if it has one
except ImportError:
    # The import machinery looks this module up again once it has run: put it back.
    if _probe is not None:
        sys.modules["sitecustomize"] = _probe
'''


def workspace_packages(workspace: Path, cwd: str) -> list[str]:
    """Top-level Python packages of the workspace (root, src/, and the same under the task's cwd)."""
    names: set[str] = set()
    for base in {workspace, workspace / cwd}:
        for parent in (base, base / "src"):
            if parent.is_dir() and not parent.is_symlink():
                names.update(p.parent.name for p in parent.glob("*/__init__.py") if p.parent.name.isidentifier())
    return sorted(names)


class ImportProbe:
    """The probe's directory and report file, inside a directory the caller owns."""

    def __init__(self, root: Path):
        self.directory = root / "import-probe"
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / "sitecustomize.py").write_text(PROBE_SOURCE, encoding="utf-8")
        # Checks write the report from their sandbox, where the probe's own code stays read-only.
        self.report_dir = root / "import-probe-report"
        self.report_dir.mkdir(parents=True, exist_ok=True)
        self.report = self.report_dir / "report.jsonl"

    def environment(self, workspace: Path, cwd: str, python_path: str | None) -> dict[str, str]:
        """Variables to lay over a check's environment (its own PYTHONPATH kept after the probe)."""
        self.report.unlink(missing_ok=True)
        path = os.pathsep.join([str(self.directory)] + ([python_path] if python_path else []))
        return {"PYTHONPATH": path, "INSTRUCTION_GATE_IMPORT_PROBE": str(self.report),
                "INSTRUCTION_GATE_WORKSPACE": str(workspace),
                "INSTRUCTION_GATE_PACKAGES": ",".join(workspace_packages(workspace, cwd))}

    def foreign_imports(self) -> dict[str, str]:
        """Module -> file outside the workspace, from every check process since `environment`."""
        found: dict[str, str] = {}
        if self.report.exists():
            for line in self.report.read_text(encoding="utf-8").splitlines():
                try:
                    found.update(json.loads(line))
                except json.JSONDecodeError:
                    continue
        return found
