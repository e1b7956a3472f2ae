"""Pure helpers every layer may import: canonical encoding, the fairness scheme's draws, safe
YAML, key names and the shape check's words. No campaign, no files, no mail; of pbem it imports
only :mod:`pbem.errors`, so rules, renderers, core and the CLI all stand on it."""
