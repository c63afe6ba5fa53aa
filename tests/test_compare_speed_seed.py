"""The speed benchmark's seed column: the seed design's compare cut out of its document, fed
rows of the same results (timings themselves are never tested)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
_spec = importlib.util.spec_from_file_location("compare_speed", BENCHMARKS / "compare_speed.py")
compare_speed = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compare_speed)

DOCUMENT = """# A design
#!/usr/bin/env python3
print("the runner, not compare")
{
  "soft": {
    "mode": "warn"
  }
}

#!/usr/bin/env python3
import sys
print("compare")
```
after the block
"""


def test_the_script_after_the_policy_is_cut_out_to_the_end_of_its_block(tmp_path):
    document = tmp_path / "design.txt"
    document.write_text(DOCUMENT)
    assert compare_speed.seed_script(document) == '#!/usr/bin/env python3\nimport sys\nprint("compare")\n'
    document.write_text(DOCUMENT.split("{")[0])
    assert compare_speed.seed_script(document) is None


def test_seed_rows_carry_the_fields_its_code_reads(tmp_path):
    data = compare_speed.synthetic_index(3, 2)
    rows_path, policy_path = compare_speed.seed_inputs(data, tmp_path)
    rows = json.loads(rows_path.read_text())
    assert len(rows) == 12 and set(rows[0]) == set(compare_speed.SEED_FIELDS)
    assert rows[0]["task_id"] == "task-0000" and isinstance(rows[0]["resolved"], bool)
    assert json.loads(policy_path.read_text())["soft"]["mode"] == "warn"
