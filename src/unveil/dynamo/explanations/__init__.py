"""Graph breaks, skipped frames, restarts and recompiles in the user's terms, from what
Dynamo records (:mod:`.records`), where resume functions go on (:mod:`.resume_points`), and
all of it in words (:mod:`.summary`).  This package reads text and bytecode only and imports
nothing of torch: ``index.json`` holds what it makes."""
