#!/usr/bin/env python3
"""Add instruction files from a local git repository to the directive corpus.

Copies each file byte for byte to `files/<owner>__<name>/<path>.txt`, appends its entry to
`sources.json` and writes `context/<owner>__<name>.json`: the trimmed view of the repository at
that commit the lint needs (see benchmarks/directive_corpus/README.md). Labels are written by
hand afterwards. Reads the repository with `git ls-tree` / `git show`; runs nothing from it.

Usage: python benchmarks/directive_corpus_add.py GIT_DIR OWNER/NAME COMMIT LICENSE ECOSYSTEM SPLIT PATH...
"""

from __future__ import annotations

import json
import posixpath
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from instruction_gate.lint import projects  # noqa: E402
from instruction_gate.lint.tree import real_path  # noqa: E402

CORPUS = Path(__file__).resolve().parent / "directive_corpus"
#: Anything that could be a file or directory name in prose or code: a superset of what the
#: lint reads as a path, so the trimmed listing answers every lookup as the whole tree would.
_TOKEN = re.compile(r"[\w@.*/~+-]+")
_CD = re.compile(r"\bcd\s+([\w./-]+)")


def _git(git_dir: str, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True).stdout


def _runner_names(path: str, text: str) -> list[str] | None:
    name = posixpath.basename(path)
    if name in projects.MAKEFILE_NAMES:
        found = projects.make_targets(text)
    elif name == "package.json":
        found = projects.npm_scripts(text)
    elif name == "noxfile.py":
        found = projects.nox_sessions(text)
    else:
        found = projects.tox_envs(text, toml=not name.endswith(".ini"))
    return None if found is None else sorted(found)


def context(git_dir: str, repository: str, commit: str, texts: dict[str, str]) -> dict:
    files = sorted(_git(git_dir, "ls-tree", "-r", "--name-only", commit).decode().splitlines())
    # Symlinks, with their targets: the lint follows a linked directory (`.claude/skills` -> `.agents/skills`).
    links = {path: _git(git_dir, "cat-file", "blob", sha).decode("utf-8", errors="replace")
             for mode, _, sha, path in (line.replace("\t", " ", 1).split(" ", 3) for line in
                                        _git(git_dir, "ls-tree", "-r", commit).decode().splitlines())
             if mode == "120000"}
    by_base: dict[str, str] = {}
    by_dir: dict[str, str] = {}
    for f in files:
        by_base.setdefault(posixpath.basename(f), f)
        parts = f.split("/")[:-1]
        for i in range(len(parts)):
            by_dir.setdefault("/".join(parts[:i + 1]), f)  # a directory by its path
            by_dir.setdefault("*" + parts[i], f)  # a directory by its name anywhere
    present = set(files)
    keep: set[str] = set()
    runner_dirs: set[str] = set()
    for source, text in texts.items():
        here = posixpath.dirname(source)
        parts = here.split("/") if here else []
        runner_dirs.update("/".join(parts[:i]) for i in range(len(parts) + 1))
        cd_dirs = {posixpath.normpath(posixpath.join(here, m.group(1))).lstrip("./") for m in _CD.finditer(text)}
        runner_dirs.update(cd_dirs)
        for token in set(_TOKEN.findall(text)):
            dotted = token.rstrip(".,:;*")  # `.rubocop.yml`: a dotfile keeps its leading dot
            token = token.strip(".,:;*").lstrip("@")
            # `cd actionview && bin/test`: the lint looks the script up below the `cd` directory
            after_cd = {posixpath.normpath(posixpath.join(d, token)) for d in cd_dirs}
            named = {token, dotted, token.lstrip("./"), posixpath.normpath(posixpath.join(here, token)), *after_cd}
            for candidate in named | {real_path(c.strip("/"), links.get) or c for c in named}:
                candidate = candidate.strip("/")
                if not candidate or candidate.startswith(".."):
                    continue
                if candidate in present:
                    keep.add(candidate)
                for key in (candidate, "*" + candidate):
                    if key in by_dir:
                        keep.add(by_dir[key])
                if candidate in by_dir:
                    runner_dirs.add(candidate)  # a directory the text names: its task runners too
                if "/" in candidate:  # named relative to a subproject: one file at or below such a path
                    tail = "/" + candidate
                    below = next((f for f in files if f.endswith(tail) or tail + "/" in f), None)
                    if below:
                        keep.add(below)
                base = posixpath.basename(candidate)
                if base in by_base:
                    keep.add(by_base[base])
    runners: dict[str, list[str] | None] = {}
    for directory in runner_dirs:
        for name in (*projects.MAKEFILE_NAMES, "package.json", "tox.ini", "tox.toml", "pyproject.toml", "noxfile.py"):
            path = posixpath.join(directory, name) if directory else name
            if path not in present:
                continue
            text = _git(git_dir, "show", f"{commit}:{path}").decode("utf-8", errors="replace")
            if name == "pyproject.toml" and "[tool.tox" not in text:
                continue
            keep.add(path)
            runners[path] = _runner_names(path, text)
    ignores = {}
    for f in files:
        if posixpath.basename(f) == ".gitignore":
            lines = _git(git_dir, "show", f"{commit}:{f}").decode("utf-8", errors="replace").splitlines()
            ignores[f] = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
            keep.add(f)
    return {"repository": repository, "commit": commit, "files_total": len(files),
            "files": sorted(keep | set(texts)), "links": dict(sorted(links.items())), "runners": dict(sorted(runners.items())),
            "gitignore": dict(sorted(ignores.items()))}


def main(argv: list[str]) -> int:
    if len(argv) < 7:
        print(__doc__, file=sys.stderr)
        return 2
    git_dir, repository, commit, license_id, ecosystem, split, *paths = argv[1:]
    slug = repository.replace("/", "__")
    texts = {}
    sources_path = CORPUS / "sources.json"
    sources = json.loads(sources_path.read_text(encoding="utf-8"))
    for path in paths:
        data = _git(git_dir, "show", f"{commit}:{path}")
        target = CORPUS / "files" / slug / f"{path}.txt"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        texts[path] = data.decode("utf-8")
        entry = {"file": f"files/{slug}/{path}.txt", "repository": repository, "path": path, "commit": commit,
                 "license": license_id, "ecosystem": ecosystem, "bytes": len(data), "split": split}
        sources = [e for e in sources if e["file"] != entry["file"]] + [entry]
    sources_path.write_text(json.dumps(sources, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    out = CORPUS / "context" / f"{slug}.json"
    out.write_text(json.dumps(context(git_dir, repository, commit, texts), indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
