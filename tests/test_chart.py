"""The per-task chart: a standalone SVG next to summary.md, linked from it; rendered by headless
Chromium (skipped only outside CI when no Chromium is installed; `make test` installs it in CI).
The Markdown stays under GitHub's 1 MiB job-summary limit with 1,000 tasks."""

from __future__ import annotations

import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from compare_builders import compare, index, policy, run
from instruction_gate.report.github import STEP_SUMMARY_LIMIT_BYTES

SVG = "{http://www.w3.org/2000/svg}"
ARTIFACTS = Path(os.environ.get("IG_TEST_ARTIFACTS", Path(__file__).resolve().parent.parent / ".test-artifacts"))
HOSTILE = '</text><script>x</script>&"'


def _runs(tasks: int, repeats: int = 2) -> list[dict]:
    runs = []
    for t in range(tasks):
        task_id = f"task-{t:04d}" if t else HOSTILE
        for r in range(repeats):
            worse = t % 5 == 0
            runs.append(run(task_id, r, "base", True, tool_calls=10 + r, wall_seconds=30.0 + t % 7,
                            events=[{"type": "tool", "tool": "shell", "command": "python -m pytest -q"}]))
            runs.append(run(task_id, r, "candidate", not (worse and r == 0), tool_calls=12 + r + t % 3,
                            wall_seconds=33.0 + t % 5, hard=["required_command_missing"] if worse else [],
                            missing_commands=["pytest"] if worse else [],
                            events=[] if worse else [{"type": "tool", "tool": "shell", "command": "python -m pytest -q"}]))
    return runs


GATED = policy(soft={"max_success_rate_drop": 0.1, "max_paired_tool_call_ratio": 1.5})


def test_compare_writes_the_chart_next_to_the_summary_and_links_it(tmp_path):
    code, _, markdown = compare(tmp_path, index(_runs(6)), GATED)
    assert code == 1
    chart = tmp_path / "out" / "summary.svg"
    assert "[summary.svg](summary.svg)" in markdown
    root = ET.parse(chart).getroot()  # well-formed: the hostile task id is escaped
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert HOSTILE in texts and not list(root.iter(f"{SVG}script"))
    assert any(t and t.startswith("success rate") for t in texts) and any(t and t.startswith("tool calls") for t in texts)
    assert "wall time ratio" not in texts  # not gated, so not drawn
    assert len(list(root.iter(f"{SVG}circle"))) == 2 * (6 + 1)  # each task and the gated row, per panel
    assert "```mermaid" in markdown and "xychart-beta" in markdown and "<script>" not in markdown


def test_markdown_stays_under_githubs_limit_with_a_thousand_tasks(tmp_path):
    _, summary, markdown = compare(tmp_path, index(_runs(1000)), GATED)
    size = len(markdown.encode("utf-8"))
    assert size < STEP_SUMMARY_LIMIT_BYTES, size
    assert summary["task_clusters"] == 1000 and markdown.count("\n- ") < 20
    assert ET.parse(tmp_path / "out" / "summary.svg").getroot() is not None


def _chromium() -> str | None:
    return next((found for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
                 if (found := shutil.which(name))), None)


def test_the_chart_renders_in_headless_chromium(tmp_path):
    browser = _chromium()
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but no Chromium is installed (`make test` installs it in CI)")
        pytest.skip("no Chromium installed (not in CI); `apt-get install chromium` to run this test")
    image = pytest.importorskip("PIL.Image")
    compare(tmp_path, index(_runs(8)), GATED)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "summary-chart.png"
    shot.unlink(missing_ok=True)
    # An <img> like GitHub's viewers: the SVG must render as an image, without scripts.
    page = tmp_path / "out" / "chart.html"
    page.write_text('<html><body style="margin:0"><img src="summary.svg"></body></html>', encoding="utf-8")
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--screenshot={shot}", "--window-size=1300,420", page.as_uri()],
                   check=True, capture_output=True, timeout=120)
    pixels = image.open(shot).convert("RGB")
    colours = pixels.getcolors(maxcolors=1 << 20)
    blue = sum(n for n, (r, g, b) in colours if b > 150 and r < 60 and 80 < g < 130)  # interval marks
    red = sum(n for n, (r, g, b) in colours if r > 180 and g < 70 and b < 80)  # bound and FAIL row
    dark = sum(n for n, (r, g, b) in colours if r + g + b < 150)  # text
    assert blue > 200 and red > 50 and dark > 500, (blue, red, dark)
