"""`python -m minigrad ...`: the same command line as the `minigrad` command."""
from minigrad.cli import main

raise SystemExit(main())
