"""Hidden check: the change carries the receipt CONTRIBUTING.md asks for, naming what changed."""

import json
import sys
from pathlib import Path

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "src" / "shop").is_dir())
RECEIPT = ROOT / ".contrib" / "receipt.json"


def main() -> int:
    if not RECEIPT.is_file():
        print("missing .contrib/receipt.json (CONTRIBUTING.md: run tools/contrib_receipt.py)", file=sys.stderr)
        return 1
    changed = json.loads(RECEIPT.read_text(encoding="utf-8")).get("changed", [])
    if "src/shop/pricing.py" not in changed:
        print(f"the receipt does not name the changed file src/shop/pricing.py: {changed}", file=sys.stderr)
        return 1
    print(f"receipt names {len(changed)} changed files")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
