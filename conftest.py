"""The whole suite's pytest set-up: Hypothesis's profile, seed and depth check
(``tests/property_depth.py``)."""

pytest_plugins = ("tests.property_depth",)
