// The HubMetrics module of DESIGN.md's stack. Its contents arrive with its own issue; until then it
// only links its dependencies so the package layout builds end to end.

