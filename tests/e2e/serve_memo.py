"""Serve the memo test runner over MCP on stdin/stdout (used by the end-to-end tests).

Usage: python serve_memo.py [--delay SECONDS] [--noisy]

``--noisy`` makes every call print to the process's stdout, which must not
reach the protocol stream.  On close the runner reports ``memo runner
closed`` on stderr.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "app"))

from memo_runner import MemoRunner, Outcome  # noqa: E402

from zpm_app.server.stdio import serve  # noqa: E402


@dataclass
class ServedMemoRunner(MemoRunner):
    noisy: bool = False

    def call(
        self, name: str, arguments: Any, progress: Any = None, client: str | None = None
    ) -> Outcome:
        if self.noisy:
            print(f"noise from {name}")
        return super().call(name, arguments, progress)

    def close(self) -> None:
        super().close()
        print("memo runner closed", file=sys.stderr, flush=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--noisy", action="store_true")
    options = parser.parse_args()
    return serve(lambda: ServedMemoRunner(delay_s=options.delay, noisy=options.noisy))


if __name__ == "__main__":
    raise SystemExit(main())
