"""Apply the SQL migrations in `migrations/` in order, each once."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


def pending(connection: sqlite3.Connection, directory: Path = MIGRATIONS) -> list[Path]:
    connection.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY)")
    done = {row[0] for row in connection.execute("SELECT name FROM schema_migrations")}
    return [p for p in sorted(directory.glob("*.sql")) if p.name not in done]


def apply_all(connection: sqlite3.Connection, directory: Path = MIGRATIONS) -> list[str]:
    applied = []
    for path in pending(connection, directory):
        connection.executescript(path.read_text(encoding="utf-8"))
        connection.execute("INSERT INTO schema_migrations (name) VALUES (?)", (path.name,))
        applied.append(path.name)
    connection.commit()
    return applied


def main(argv: list[str]) -> int:
    target = Path(argv[0] if argv else "var/payments.sqlite3")
    target.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(target) as connection:
        for name in apply_all(connection):
            print(f"applied {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
