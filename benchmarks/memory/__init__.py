"""Does memory help? Families of tasks that share a hidden requirement, memory on and off.

See README.md in this folder.
"""
