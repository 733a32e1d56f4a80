"""JSON as Go's encoding/json reads and writes it: float formatting, struct decoding, its errors.

Pure functions; imports nothing else from the engine.
"""
