"""``python -m zpm_app``: the ``zpm`` command line."""

from zpm_app.cli import main

raise SystemExit(main())
