"""Engines and their plugins: which engines exist, which can run here, building one.

``registry`` is the engine registry, ``plugins`` loads the plugins that fill it
(``hookspecs``: the hook they implement), ``records`` what it holds, ``report``
what ``zpm engines`` shows.
"""
