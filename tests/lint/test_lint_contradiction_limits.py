"""IG006 stays quiet where a rule is an exception to a ban or a pronoun hides what is banned."""

import pytest

from tests.lint.test_lint_rules import findings


@pytest.mark.parametrize("text", [
    # a requirement under a condition is an exception, not the ban's opposite
    "- Without an accepted issue your PR is closed. Do not open it.\n"
    "- If the issue is not labelled yet, stop; open the PR only after a maintainer accepts it.\n",
    "- Never push to `main`.\n- Push to `main` unless a release is running.\n",
    # "it" stands for something the sentence does not name
    "- Do not merge it.\n- Always merge it after CI is green.\n",
])
def test_conditional_rules_and_pronouns_are_no_contradiction(tmp_path, text):
    assert findings(tmp_path, {"AGENTS.md": text}, "IG006") == []


def test_a_plain_opposite_rule_is_still_a_contradiction(tmp_path):
    text = "- Never run `make deploy`.\n- Always run `make deploy` before committing.\n"
    assert len(findings(tmp_path, {"AGENTS.md": text}, "IG006")) == 1
