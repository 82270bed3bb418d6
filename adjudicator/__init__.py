"""coreflow: adjudicator."""
