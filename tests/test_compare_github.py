"""GitHub output: annotation limits and escaping, the 1 MiB job-summary cap, Markdown safety."""

from __future__ import annotations

import io

from instruction_gate.report import github, textfmt


def test_annotations_are_capped_per_level_and_count_the_rest():
    out = io.StringIO()
    github.emit_annotations([f"error {i}" for i in range(13)], ["only warning"], out)
    lines = out.getvalue().splitlines()
    errors = [line for line in lines if line.startswith("::error ")]
    assert len(errors) == github.ANNOTATIONS_PER_LEVEL
    assert errors[-1].endswith("error 9 (and 3 more; see the job summary)")
    assert lines[-1] == "::warning title=instruction-gate::only warning"


def test_annotation_messages_cannot_inject_workflow_commands():
    (line,) = github.annotations("error", ["bad\n::set-output name=x::y 100%"], "a:b,c")
    assert line == "::error title=a%3Ab%2Cc::bad%0A::set-output name=x::y 100%25"
    assert "\n" not in line


def test_step_summary_is_cut_at_a_line_boundary_to_fit_the_limit():
    markdown = "".join(f"line {i:04d}\n" for i in range(1000))  # 10,000 bytes
    cut = github.fit_to_limit(markdown, already_used=0, limit=4000)
    assert len(cut.encode()) <= 4000 and cut.endswith("see summary.md.\n")
    body = cut.split("\n\n…")[0]
    assert body.endswith("\n") and all(line.startswith("line ") for line in body.splitlines())
    assert github.fit_to_limit(markdown, already_used=0, limit=20000) == markdown
    assert github.fit_to_limit(markdown, already_used=3990, limit=4000) == ""


def test_append_step_summary_respects_what_earlier_steps_wrote(tmp_path):
    target = tmp_path / "summary"
    target.write_text("x" * (github.STEP_SUMMARY_LIMIT_BYTES - 200))
    assert github.append_step_summary("y\n" * 500, {"GITHUB_STEP_SUMMARY": str(target)}) == target
    assert target.stat().st_size <= github.STEP_SUMMARY_LIMIT_BYTES
    assert github.append_step_summary("z", {}) is None


def test_untrusted_text_stays_inert_in_markdown_tables():
    evil = "a|b `c` <img src=x onerror=alert(1)> [link](http://x) **bold**\nnext"
    cell = textfmt.md(evil)
    assert "\n" not in cell
    assert "\\<img" in cell and "\\[link\\]" in cell and "\\|" in cell and "\\*\\*bold" in cell
    assert textfmt.code("x `y` | z") == "``x `y` \\| z``"
    assert textfmt.md("x" * 500, 20) == "x" * 19 + "…"
