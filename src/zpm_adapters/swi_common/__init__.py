"""What the janus and pyswip engines share: the Prolog support module, the term
codec, the clause mirror and the engine logic over an abstract binding.

Importing this package never loads libswipl.
"""
