"""The errors of the mount table (``zpm_domain.memory.mounts``): a memory that
exists already, is not found, may not be unmounted or deleted, is not a fork,
or may not be used in a session that works on its own fork."""

from __future__ import annotations

from zpm_domain.errors import ZpmError
from zpm_domain.memory.names import DEFAULT_MEMORY


class MemoryAlreadyExists(ZpmError):
    def __init__(self, name: str) -> None:
        super().__init__(f"Memory '{name}' already exists")


class MemoryAlreadyMounted(ZpmError):
    def __init__(self, name: str) -> None:
        super().__init__(f"Memory '{name}' is already mounted")


class MemoryNotFound(ZpmError):
    def __init__(self, name: str) -> None:
        super().__init__(f"Memory not found: {name}")


class DefaultNotUnmountable(ZpmError):
    def __init__(self) -> None:
        super().__init__("Cannot unmount the default memory")


class ForksMounted(ZpmError):
    def __init__(self, name: str, forks: list[str]) -> None:
        listed = ", ".join(forks)
        super().__init__(
            f"Cannot unmount memory '{name}': its forks are mounted ({listed}); unmount them first"
        )


class CannotDelete(ZpmError):
    def __init__(self, name: str, why: str) -> None:
        if name == DEFAULT_MEMORY:
            super().__init__("Cannot delete the default memory")
        else:
            super().__init__(f"Cannot delete memory '{name}': {why}")


class NotAFork(ZpmError):
    def __init__(self, name: str) -> None:
        super().__init__(f"Memory '{name}' is not a fork")


class SessionForkOnly(ZpmError):
    """A memory-management call in a session that works on its own fork."""

    def __init__(self, tool: str, fork: str) -> None:
        super().__init__(
            f"Not allowed in a forked session: {tool} (this session writes only to its "
            f"fork '{fork}'; a person merges it with zpm merge-memory --name {fork})"
        )
