"""Hidden check: the typo is fixed and the guide is otherwise unchanged."""

import sys
from pathlib import Path

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "src" / "shop").is_dir())


def main() -> int:
    guide = (ROOT / "docs" / "guide.md").read_text(encoding="utf-8")
    if "recieve" in guide:
        print("docs/guide.md still says 'recieve'", file=sys.stderr)
        return 1
    if "We receive every message within a minute" not in guide or guide.count("\n## ") != 3:
        print("docs/guide.md changed beyond the typo", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
