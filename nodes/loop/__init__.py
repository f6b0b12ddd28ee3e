"""The refinement loop's steps: check_input, generate, critique, route, finalize."""
