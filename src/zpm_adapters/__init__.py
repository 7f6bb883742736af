"""Adapters: engines, persistence and registries implementing the domain ports."""
