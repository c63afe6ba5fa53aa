#!/usr/bin/env python3
"""Write .contrib/receipt.json: which files this change touches (see CONTRIBUTING.md)."""

import json
import subprocess
from pathlib import Path

RECEIPT = Path(".contrib/receipt.json")


def changed_files() -> list[str]:
    status = subprocess.run(["git", "status", "--porcelain=v1", "--untracked-files=all"],
                            capture_output=True, text=True, check=True).stdout
    paths = {line[3:].split(" -> ")[-1] for line in status.splitlines() if len(line) > 3}
    return sorted(p for p in paths if not p.startswith(".contrib/"))


def main() -> int:
    root = Path(subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True,
                               text=True, check=True).stdout.strip())
    receipt = root / RECEIPT
    receipt.parent.mkdir(exist_ok=True)
    receipt.write_text(json.dumps({"changed": changed_files()}, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RECEIPT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
