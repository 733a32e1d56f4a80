"""YAML written byte for byte as Go's gopkg.in/yaml.v2 (v2.4.0) and yaml.v3 (v3.0.1) write it.

Pure functions over JSON values; imports nothing else from the engine.
"""
