"""zpm domain core: terms, reader, writer, errors, ports and tool services.

This package imports only the Python standard library.
"""
