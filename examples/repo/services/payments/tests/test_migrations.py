import re
import sqlite3

from payments.migrate import MIGRATIONS, apply_all
from payments.schema import COLUMNS


def test_migrations_are_numbered_without_gaps():
    numbers = [int(re.match(r"(\d{4})_", p.name).group(1)) for p in sorted(MIGRATIONS.glob("*.sql"))]
    assert numbers == list(range(1, len(numbers) + 1))


def test_schema_matches_the_code():
    connection = sqlite3.connect(":memory:")
    apply_all(connection)
    for table, columns in COLUMNS.items():
        found = tuple(row[1] for row in connection.execute(f"PRAGMA table_info({table})"))
        assert found == columns, table


def test_migrations_apply_once():
    connection = sqlite3.connect(":memory:")
    apply_all(connection)
    assert apply_all(connection) == []
