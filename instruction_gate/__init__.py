"""instruction-gate: a paired regression gate for agent instruction files."""

__version__ = "0.1.0"
HARNESS_VERSION = f"instruction-gate/{__version__}"
