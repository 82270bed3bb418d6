"""The match-log vocabulary: pydantic models of every line, the reader and the hash chain."""
