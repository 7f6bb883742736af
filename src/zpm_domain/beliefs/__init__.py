"""Truth-maintenance state of one memory: assumption supports, defeat of functional
facts, withdrawal history, the fact index.  Imports ``stored``, ``ports`` and ``prolog``."""
