"""A small project with a history of fixes of every kind mining must tell apart."""

from __future__ import annotations

AGENTS = "# Agents\n\nRun the tests with `python -m pytest -q` before finishing.\n\nNever run `pip install`.\n"
CALC_V1 = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
CALC_V2 = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
TEST_V1 = "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"
TEST_V2 = TEST_V1.replace("from calc import mul", "from calc import add, mul") + "\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def build(repo) -> dict[str, str]:
    """Commits by role: `fix` (a good task), `docs`, `no_tests`, `vacuous` (its test passes without
    the fix), `timing` (its test waits on the clock), `later` (an unrelated change after them)."""
    shas = {}
    repo.commit({"AGENTS.md": AGENTS, "calc.py": CALC_V1, "tests/test_calc.py": TEST_V1,
                 "text.py": "def shout(s):\n    return s.upper()\n",
                 "tests/test_text.py": "from text import shout\n\n\ndef test_shout():\n    assert shout('a') == 'A'\n"},
                "initial")
    shas["fix"] = repo.commit({"calc.py": CALC_V2, "tests/test_calc.py": TEST_V2}, "Fix add returning the difference (#12)")
    shas["docs"] = repo.commit({"README.md": "Calc.\n"}, "docs: fix typo in README")
    shas["no_tests"] = repo.commit({"text.py": "def shout(s):\n    return s.upper()  # fixed\n"}, "Fix comment in shout")
    shas["vacuous"] = repo.commit({"text.py": "def shout(s):\n    return str(s).upper()\n",
                                   "tests/test_text.py": "from text import shout\n\n\ndef test_shout():\n    assert shout('a') == 'A'\n\n\n"
                                                         "def test_shout_word():\n    assert shout('ab') == 'AB'\n"},
                                  "Fix shout for non-string input")
    shas["timing"] = repo.commit({"clock.py": "import time\n\n\ndef now():\n    return time.time()\n",
                                  "tests/test_clock.py": "import time\nfrom clock import now\n\n\ndef test_now():\n    time.sleep(0.01)\n    assert now() > 0\n"},
                                 "Fix now() clock error")
    shas["stale"] = repo.commit({"calc.py": CALC_V2.replace("a * b", "b * a"), "tests/test_mul.py": "from calc import mul\n\n\ndef test_mul_order():\n    assert mul(3, 2) == 6\n"},
                                "Fix mul argument order")
    shas["later"] = repo.commit({"calc.py": CALC_V2.replace("a * b", "a * b  # product")}, "Add whisper")
    return shas
