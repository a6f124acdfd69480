"""Emits the example models (examples/gen_*.py) as mt dialect text."""
