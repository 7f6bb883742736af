"""Whatever opens a memory reads every journal operation, tools loaded or not."""

from __future__ import annotations

import subprocess
import sys

KNOWN = "from zpm_domain.changes import known_operations; print(' '.join(known_operations()))"


def _operations_after(imports: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", f"{imports}; {KNOWN}"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return set(done.stdout.split())


def test_the_memory_alone_registers_every_operation_the_tools_do() -> None:
    """Without the tool catalogue (a library user, a maintenance command), a
    journal holding a rename must still be readable."""
    with_tools = _operations_after("import zpm_app.catalogue.tool_catalogue")
    assert "rename" in with_tools
    assert _operations_after("import zpm_domain.memory.memory") == with_tools
    assert _operations_after("import zpm_domain.memory.journal_health") == with_tools
