"""The code inside the two sandboxes of a `tests` criterion (copied in as `critic_loop_boundary`).

The draft process (`artifact`) answers calls to the drafted module; the harness (`plugin`)
runs the tests against a stand-in. Only plain data crosses (`wire`): no object of the
draft's making (a forged `__eq__`) reaches the tests. Standard library and pytest only.
"""
