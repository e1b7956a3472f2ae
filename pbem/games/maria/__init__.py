"""Maria (Histogame, War of the Austrian Succession 1741-1744): rules in ../shared/rules/maria.md."""
