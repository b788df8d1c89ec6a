// Package compact keeps a long session inside the model's context window,
// the way the established harness does: when the context grows past the
// window less a reserve, the older part of the active branch is summarised
// by the model and a compaction entry stands for it from then on (the
// session file keeps everything). It also summarises a branch a person
// navigates away from (SummarizeBranch). Token accounting, the cut point,
// split turns, file lists and the stored entries match that harness, so
// either continues the other's sessions; the instructions given to the
// summarising model are pi's own words.
package compact
