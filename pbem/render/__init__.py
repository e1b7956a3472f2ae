"""Renderers: the SVG map and the report context builders (pure functions of state)."""
