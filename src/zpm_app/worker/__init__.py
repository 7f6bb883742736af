"""The knowledge worker: every tool call, resource read and subscription, one at a time.

``knowledge_worker`` runs them in the order they arrived, ``toolbox`` runs one
tool over the mounted memories, ``callers`` says who calls and what they reach,
``call_shares`` keeps one caller from filling the queue, ``collection`` keeps
garbage collection from stalling a server that holds a large memory.
"""
