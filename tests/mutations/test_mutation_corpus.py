"""Every mutation operator on every real instruction file of the directive corpus, judged by an
independent CommonMark parser (markdown-it-py), not by the code-block reader the operators use.

For each mutant: the file keeps instruction text (no operator empties a file or leaves only
headings); every code block of the mutant is one of the original's, written the same (no edit
inside a code example, no fence cut in half); a block the mutant lacks lies wholly inside what a
deleting operator removed; `contradiction` splits no list. `stale-command` may rename a command inside a shell block (that is the
operator), never inside a code example of a programming language or a drawn tree.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache
from pathlib import Path, PurePosixPath

import pytest
from markdown_it import MarkdownIt

from instruction_gate.mutations.operators import OPERATORS, generate

CORPUS = Path(__file__).resolve().parents[2] / "benchmarks" / "directive_corpus"
SOURCES = json.loads((CORPUS / "sources.json").read_text())
#: Info words of blocks that show code, not commands (written here, apart from the product's list).
EXAMPLE_LANGUAGES = {"python", "py", "javascript", "js", "ts", "typescript", "tsx", "jsx", "go", "rust", "java",
                     "kotlin", "ruby", "php", "swift", "elixir", "json", "yaml", "yml", "toml", "xml", "html",
                     "css", "c", "cpp", "csharp", "cs", "sql", "diff", "markdown", "md", "mermaid", "text", "txt"}
DELETING = {"delete-section", "delete-rule", "truncate"}
_PARSER = MarkdownIt("commonmark")


@lru_cache(maxsize=None)
def _code(text: str) -> tuple[tuple[tuple[str, str], range], ...]:
    """Every fenced and indented code block: ((info word, content), its 0-based lines)."""
    return tuple(((token.info.strip().split(" ")[0].lower() if token.type == "fence" else "", token.content),
                  range(*token.map)) for token in _PARSER.parse(text) if token.type in ("fence", "code_block"))


def _blocks(text: str) -> list[tuple[str, str]]:
    return [block for block, _ in _code(text)]


def _removed_span(before: str, after: str) -> tuple[int, int]:
    """The one span of `before` a deleting mutant removed (common prefix and suffix)."""
    prefix = 0
    while prefix < min(len(before), len(after)) and before[prefix] == after[prefix]:
        prefix += 1
    suffix = 0
    while suffix < len(after) - prefix and before[-1 - suffix] == after[-1 - suffix]:
        suffix += 1
    return prefix, len(before) - suffix


def _keeps_instructions(text: str) -> bool:
    return any(line.strip() and not line.lstrip().startswith("#") for line in text.splitlines())


def _shape(text: str) -> tuple[int, int]:
    """(lists, list items) as the parser reads them."""
    tokens = _PARSER.parse(text)
    return (sum(t.type in ("bullet_list_open", "ordered_list_open") for t in tokens),
            sum(t.type == "list_item_open" for t in tokens))


def _removed_lines(before: str, span: tuple[int, int]) -> range:
    """The lines of `before` that a removed character span covers whole or in part."""
    return range(before.count("\n", 0, span[0]), before.count("\n", 0, max(span[0], span[1] - 1)) + 1)


def _is_example(block: tuple[str, str]) -> bool:
    return block[0] in EXAMPLE_LANGUAGES or any("\u2500" <= c <= "\u257f" for c in block[1])


def _problems(path: str, before: str, operator: str, after: str) -> list[str]:
    problems = [] if _keeps_instructions(after) else ["no instruction text left"]
    original, mutated = Counter(_blocks(before)), Counter(_blocks(after))
    new, gone = mutated - original, original - mutated
    if operator == "stale-command":  # a renamed command in a shell block replaces that block
        renamed = Counter({b: n for b, n in new.items() if not _is_example(b)})
        new -= renamed
        replaced = Counter({b: n for b, n in gone.items() if not _is_example(b)})
        gone -= replaced
        if sum(renamed.values()) != sum(replaced.values()):
            problems.append("shell blocks added or removed")
    elif operator in DELETING:
        removed = _removed_lines(before, _removed_span(before, after))
        inside = Counter(b for b, lines in _code(before) if lines.start in removed and lines.stop - 1 in removed)
        gone -= inside
    if operator == "contradiction":  # one rule inserted: a list gains at most that item, none splits
        lists = [_shape(text) for text in (before, after)]
        if lists[1][0] != lists[0][0] or lists[1][1] - lists[0][1] not in (0, 1):
            problems.append(f"lists changed from {lists[0]} to {lists[1]}")
    problems += [f"code block changed or cut: {content[:60]!r}" for _, content in new]
    problems += [f"code block gone: {content[:60]!r}" for _, content in gone]
    return [f"{path} [{operator}]: {p}" for p in problems]


@lru_cache(maxsize=None)
def _mutants(index: int) -> tuple[str, bytes, list]:
    source = SOURCES[index]
    name, text = PurePosixPath(source["path"]).name, (CORPUS / source["file"]).read_bytes()
    return name, text, generate({name: text}, list(OPERATORS))


@pytest.mark.parametrize("index", range(len(SOURCES)), ids=[s["file"] for s in SOURCES])
def test_no_operator_edits_a_code_example_or_empties_a_real_instruction_file(index):
    source = SOURCES[index]
    name, text, mutants = _mutants(index)
    problems = []
    for mutant in mutants:
        after = mutant.changes[name].decode("utf-8", "replace")
        problems += _problems(source["file"], text.decode("utf-8", "replace"), mutant.operator, after)
    assert not problems, "\n".join(problems[:20])


def test_the_corpus_gives_every_operator_work():
    """The check above means something only if the operators act on these files."""
    made = Counter(m.operator for index in range(len(SOURCES)) for m in _mutants(index)[2])
    assert {op: made[op] > 0 for op in OPERATORS if op != "swap-overrides"} == \
        {op: True for op in OPERATORS if op != "swap-overrides"}, made
    assert sum(made.values()) > 5 * len(SOURCES)
