"""Settings resolution: project, engine and limits precedence; config errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from zpm_app.bootstrap.config import (
    ConfigError,
    ProjectNotFound,
    Settings,
    StorageSettings,
    init_project,
    resolve_settings,
)
from zpm_domain.limits import Limits


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    init_project(root)
    return root


def write_config(root: Path, text: str) -> Path:
    path = root / ".zpm" / "config.toml"
    path.write_text(text)
    return path


def test_defaults_from_discovery(project: Path) -> None:
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    settings = resolve_settings(cwd=sub, env={})
    assert settings == Settings(paths=settings.paths, engine="auto", limits=Limits())
    assert settings.project_root == project.resolve()
    assert settings.paths.wal_path == project.resolve() / ".zpm/data/journal.wal"


def test_project_argument_beats_env_beats_discovery(tmp_path: Path, project: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    init_project(other)
    env = {"ZPM_PROJECT_DIR": str(other)}
    assert resolve_settings(cwd=project, env=env).project_root == other
    assert resolve_settings(project="proj", cwd=tmp_path, env=env).project_root == project
    assert resolve_settings(cwd=project, env={"ZPM_PROJECT_DIR": ""}).project_root == (
        project.resolve()
    )


def test_chosen_directory_must_hold_zpm(tmp_path: Path, project: Path) -> None:
    with pytest.raises(ProjectNotFound) as info:
        resolve_settings(project=str(project / "src"), cwd=tmp_path, env={})
    assert info.value.directory == project / "src"
    with pytest.raises(ProjectNotFound, match="Run `zpm init`"):
        resolve_settings(cwd=tmp_path, env={"ZPM_PROJECT_DIR": str(tmp_path)})


def test_no_project_found_by_discovery(tmp_path: Path) -> None:
    with pytest.raises(ProjectNotFound) as info:
        resolve_settings(cwd=tmp_path, env={})
    assert (info.value.directory, info.value.upwards) == (tmp_path, True)
    assert str(info.value) == (
        f"No .zpm/ directory found in {tmp_path} or any folder above it. "
        f"Run `zpm init` to initialize a project (`zpm init {tmp_path}`)."
    )


def test_engine_precedence(project: Path) -> None:
    write_config(project, '[engine]\nname = "pyswip"\n')
    assert resolve_settings(cwd=project, env={}).engine == "pyswip"
    env = {"ZPM_ENGINE": "janus"}
    assert resolve_settings(cwd=project, env=env).engine == "janus"
    assert resolve_settings(engine="python", cwd=project, env=env).engine == "python"


def test_the_engine_origin_says_where_the_name_was_set(project: Path) -> None:
    assert resolve_settings(cwd=project, env={}).engine_origin == ""
    config = write_config(project, '[engine]\nname = "pyswip"\n')
    assert resolve_settings(cwd=project, env={}).engine_origin == str(config)
    env = {"ZPM_ENGINE": "janus"}
    assert resolve_settings(cwd=project, env=env).engine_origin == "ZPM_ENGINE"
    assert resolve_settings(engine="python", cwd=project, env=env).engine_origin == "--engine"


def test_limits_from_config_and_time_from_env(project: Path) -> None:
    write_config(
        project,
        "[limits]\ntime_s = 2\nmax_solutions = 7\nmax_inferences = 1000\n"
        "max_depth = 50\nmax_input_bytes = 4096\nmax_memory_mb = 64\n",
    )
    limits = resolve_settings(cwd=project, env={}).limits
    assert (limits.time_s, limits.max_solutions, limits.max_inferences) == (2.0, 7, 1000)
    assert (limits.max_depth, limits.max_input_bytes) == (50, 4096)
    assert limits.max_memory_mb == 64
    assert limits.max_answer_cells == Limits().max_answer_cells
    env = {"ZPM_TIME_LIMIT": "0.25"}
    assert resolve_settings(cwd=project, env=env).limits.time_s == 0.25


def test_checkpoints_from_config(project: Path) -> None:
    assert resolve_settings(cwd=project, env={}).checkpoint_batches == 1000
    write_config(project, "[history]\ncheckpoint_batches = 50\n")
    assert resolve_settings(cwd=project, env={}).checkpoint_batches == 50


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[limits\n", "invalid TOML"),
        ("[engine]\nname = 3\n", "'engine.name'"),
        ('[engine]\nname = ""\n', "'engine.name'"),
        ('[engine]\nkind = "python"\n', "unknown key 'engine.kind'"),
        ("[limits]\ntimeout = 3\n", "unknown key 'limits.timeout'"),
        ("[server]\nport = 1\n", "unknown key 'server'"),
        ("engine = 1\n", "'engine' must be a table"),
        ("[limits]\ntime_s = 0\n", "'limits.time_s'"),
        ('[limits]\ntime_s = "5"\n', "'limits.time_s'"),
        ("[limits]\ntime_s = nan\n", "'limits.time_s'"),
        ("[limits]\nmax_solutions = -1\n", "'limits.max_solutions'"),
        ("[history]\ncheckpoint_batches = 1\n", "'history.checkpoint_batches'"),
        ('[history]\ncheckpoint_batches = "9"\n', "'history.checkpoint_batches'"),
        ("[limits]\nmax_depth = 1.5\n", "'limits.max_depth'"),
        ("[limits]\nmax_inferences = true\n", "'limits.max_inferences'"),
    ],
)
def test_invalid_config_names_file_and_key(project: Path, text: str, key: str) -> None:
    path = write_config(project, text)
    with pytest.raises(ConfigError) as info:
        resolve_settings(cwd=project, env={})
    assert str(path) in str(info.value) and key in str(info.value)


@pytest.mark.parametrize("value", ["soon", "0", "-1", "inf"])
def test_invalid_time_limit_env(project: Path, value: str) -> None:
    with pytest.raises(ConfigError, match="ZPM_TIME_LIMIT"):
        resolve_settings(cwd=project, env={"ZPM_TIME_LIMIT": value})


def test_unreadable_config_is_a_config_error(project: Path) -> None:
    (project / ".zpm" / "config.toml").mkdir()
    with pytest.raises(ConfigError, match="cannot read"):
        resolve_settings(cwd=project, env={})


def test_import_stays_light() -> None:
    code = (
        "import sys, zpm_app.bootstrap.config as c; "
        "heavy = {'tomllib', 'json', 'mcp', 'pluggy', 'asyncio', 'pydantic'} & set(sys.modules); "
        "print(sorted(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out == "[]\n"


def test_storage_is_files_unless_a_database_is_named(project: Path) -> None:
    assert resolve_settings(cwd=project, env={}).storage == StorageSettings()
    assert not resolve_settings(cwd=project, env={}).storage.shared
    assert resolve_settings(cwd=project, env={"ZPM_STORAGE_URL": "file"}).storage.url is None


def test_storage_from_env_beats_config(project: Path) -> None:
    write_config(project, '[storage]\nurl = "postgresql://a@h/db"\nspace = "team"\n')
    settings = resolve_settings(cwd=project, env={})
    assert settings.storage == StorageSettings(
        "postgresql://a@h/db",
        "team",
        "global",
        f"{project / '.zpm' / 'config.toml'}: 'storage.url'",
    )
    env = {"ZPM_STORAGE_URL": "service=zpm", "ZPM_SPACE": "other", "ZPM_GLOBAL_SPACE": "org"}
    chosen = resolve_settings(cwd=project, env=env).storage
    assert (chosen.url, chosen.space, chosen.global_space) == ("service=zpm", "other", "org")


def test_a_database_needs_no_project_folder(tmp_path: Path) -> None:
    env = {"ZPM_STORAGE_URL": "postgresql://h/db", "ZPM_SPACE": "team"}
    settings = resolve_settings(cwd=tmp_path, env=env)
    assert settings.project_root == tmp_path and settings.storage.space == "team"
    with pytest.raises(ProjectNotFound):
        resolve_settings(cwd=tmp_path, env={"ZPM_SPACE": "team"})


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"ZPM_STORAGE_URL": "postgresql://h/db"}, "say which space"),
        ({"ZPM_STORAGE_URL": "mysql://h/db", "ZPM_SPACE": "s"}, "must be 'file' or a PostgreSQL"),
        ({"ZPM_STORAGE_URL": "postgresql://h/db", "ZPM_SPACE": "a b"}, "must be a space name"),
        ({"ZPM_STORAGE_URL": "postgresql://h/db", "ZPM_SPACE": "global"}, "holds the global"),
    ],
)
def test_bad_storage_settings_say_what_is_wrong(
    project: Path, env: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        resolve_settings(cwd=project, env=env)
