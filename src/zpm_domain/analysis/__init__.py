"""Reads across a whole memory that several tools share: ranked fact search and
justifications (proof trees).  Imports ``memory`` and every layer below it."""
