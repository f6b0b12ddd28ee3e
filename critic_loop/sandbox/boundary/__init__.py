"""The code that runs inside the two sandboxes of a `tests` criterion.

The draft process (`artifact`) imports the drafted module and answers calls to it over a
socket; the harness process (`plugin`) runs the tests against a stand-in module and alone
holds the report pipe. Only plain data crosses (`wire`), so no object of the drafted
code's making (a forged `__eq__`, an `int` subclass) reaches the tests. Copied into each
sandbox as `critic_loop_boundary`: standard library (and pytest) only, relative imports.
"""
