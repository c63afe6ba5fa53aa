"""The repository's instruction files, as inputs no output of any command may replace.

`lint --json R/AGENTS.md` would otherwise overwrite the very file it reads. Protected are the
instruction files of the working directory (by the names agents load and the manifest's
instruction paths), every file their `@imports` reach, and the real files their links point to;
an output that is not yet a file but would become an instruction file by its name is refused too,
and so is any file git tracks (`lint --json Makefile` would replace a file the lint reads).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from instruction_gate import git
from instruction_gate.lint.chains import imports_closure, instruction_files
from instruction_gate.lint.tree import DirTree
from instruction_gate.outputs import check_outputs


def instruction_inputs(repo: Path, instruction_paths: Iterable[str] = (), outputs: Iterable[Path] = ()) -> list[Path]:
    """Paths in `repo` an output must never be: read instruction files, and `outputs` that would be one."""
    if not repo.is_dir():
        return []
    tree = DirTree(repo)
    paths = tuple(instruction_paths)
    named = instruction_files(tree, paths)
    found = [tree.root / p for p in {*named, *imports_closure(tree, named)}]
    for output in outputs:
        try:
            relative = Path(output).resolve().relative_to(tree.root).as_posix()
        except ValueError:
            continue
        if instruction_files(_Only(relative), paths) or (Path(output).is_file() and _tracked(tree.root, relative)):
            found.append(Path(output))  # `lint --json Makefile`: a tracked file is the project's, and read
    return found


def _tracked(root: Path, relative: str) -> bool:
    """Whether git tracks `relative` in `root` (a report never replaces a file of the project)."""
    listed = git.git("ls-files", "-z", "--", f":(literal){relative}", cwd=root, check=False)
    return listed.ok and bool(listed.stdout.strip("\0"))


class _Only:
    """A tree of one (absent) file: asks whether its path alone would be an instruction file."""

    def __init__(self, path: str):
        self.path = path

    def files(self) -> frozenset[str]:
        return frozenset({self.path})

    def read(self, path: str) -> bytes | None:
        return None

    def link_target(self, path: str) -> str | None:
        return None


def check_repository_outputs(repo: Path, files: dict[str, Path], inputs: Iterable[Path] = (),
                             instruction_paths: Iterable[str] = (), dirs: dict[str, Path] | None = None) -> None:
    """`check_outputs`, with the repository's instruction files among the inputs (exit 2 before any write)."""
    paths = tuple(instruction_paths)
    check_outputs(files, [*inputs, *instruction_inputs(repo, paths, files.values())], dirs)


def in_directory(flag: str, directory: Path, names: Iterable[str]) -> dict[str, Path]:
    """The files a command writes under its output directory, each named with the option that places it."""
    return {f"{flag} ({name})": directory / name for name in names}
