#!/usr/bin/env python3
"""Build the submission: `python pack.py [--config config.toml] [--out dist]` (= `gdnkit pack`)."""

import sys

from gdnkit.cli import main

if __name__ == "__main__":
    sys.exit(main(["pack", *sys.argv[1:]]))
