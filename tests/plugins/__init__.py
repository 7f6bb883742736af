"""Tests of engine plugins and the engine registry."""
