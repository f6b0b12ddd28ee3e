"""Copied into both sandboxes of a `tests` run; standard library and pytest only.

Only plain data crosses (`wire`): no object of the draft's making (a forged `__eq__`) reaches
the tests.
"""
