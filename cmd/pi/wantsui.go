package main

// wantsUI reports whether this run opens the interactive session: a
// terminal on both ends and neither -p nor another mode.
func (a *app) wantsUI(r *runFlags) bool {
	return a.isTerminal && a.outTerminal && !r.print && r.mode == "text" && !r.dryRun
}
