"""The refinement loop's nodes and the helpers they share."""
