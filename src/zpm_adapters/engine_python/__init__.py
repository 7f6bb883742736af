"""The pure-Python Prolog engine."""
