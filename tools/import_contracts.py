"""An import-linter contract type the library does not have: the modules of
``source_modules`` import nothing but the standard library and themselves.

Used by the ``[tool.importlinter]`` contracts in ``pyproject.toml`` (run by
``lint-imports``) to keep ``zpm_domain`` free of third-party and adapter code.
"""

from __future__ import annotations

import sys

import grimp
from importlinter import Contract, ContractCheck, fields, output


class StandardLibraryOnly(Contract):
    """Each module under ``source_modules`` imports only modules of the
    standard library (``sys.stdlib_module_names``) or of ``source_modules``;
    ``TYPE_CHECKING`` imports count as imports."""

    type_name = "standard_library_only"

    source_modules = fields.ListField(subfield=fields.ModuleField())

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        roots = [module.name for module in self.source_modules]  # type: ignore[attr-defined]
        own = set(roots)
        for root in roots:
            own |= graph.find_descendants(root)
        found = []
        for importer in sorted(own):
            for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                top = imported.split(".")[0]
                if imported in own or top in sys.stdlib_module_names:
                    continue
                for detail in graph.get_import_details(importer=importer, imported=imported):
                    found.append((importer, imported, detail["line_number"]))
        return ContractCheck(kept=not found, metadata={"found": found})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for importer, imported, line in check.metadata["found"]:
            output.print_error(f"{importer} imports {imported} (line {line})", bold=False)
            output.new_line()
