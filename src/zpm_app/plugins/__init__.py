"""Engine plugins: the hook specification, the built-in plugin and the manager.

Importing this package imports nothing else: ``hookspecs`` and ``manager``
import pluggy, and they are imported only when the engine registry is built
(to list the engines, or to create one that is not the built-in python engine).
"""
