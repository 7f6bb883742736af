"""Forks: what a fork changed since its fork point, reviewing it, and merging it
into its parent memory.  Imports ``memory`` and every layer below it."""
