"""The zpm engine contract suite.

Run it against every engine available here, or against named ones::

    pytest --pyargs zpm_contract
    pytest --pyargs zpm_contract --zpm-reference python --zpm-engine NAME

Every engine is driven through ``zpm serve --engine NAME`` processes, so an
engine that embeds a native runtime never shares a process with another.
"""
