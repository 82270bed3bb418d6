"""coreflow: projections."""
