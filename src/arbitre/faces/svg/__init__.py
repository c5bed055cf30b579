"""Pictures of tables and maps (pure functions returning SVG text) and the overlays
each ruleset draws."""
