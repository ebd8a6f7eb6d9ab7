"""Quality-diversity search (`aka optimize --strategy map-elites`): an archive of behavioural cells
on islands, parent selection, directed proposals, migration and meta-prompt evolution, as a
LangGraph loop beside the greedy one (docs/map-elites.md)."""
