"""Run kgvault as `python -m kgvault`."""

from kgvault.cli import main

main()
