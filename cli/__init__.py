"""coreflow: cli."""
