"""``python -m zpm_contract.engine_checks NAME`` (see ``check.main``)."""

from __future__ import annotations

import sys

from zpm_contract.engine_checks.check import main

sys.exit(main())
