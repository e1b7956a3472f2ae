"""The rules of Maria, one module per part of the sequence of play (combat, supply, ...)."""
