"""The Prolog language, nothing zpm-specific: terms, unification, reading, writing,
the allow-list of built-ins and the sandbox.  Imports only the standard library
and ``zpm_domain``'s base modules (errors, limits)."""
