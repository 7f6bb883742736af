"""The whole suite's pytest set-up: Hypothesis's profile, seed and depth check
(``tests/property_depth.py``), and the order of its files (``tests/scheduling.py``)."""

pytest_plugins = ("tests.property_depth", "tests.scheduling")
