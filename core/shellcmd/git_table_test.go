package shellcmd

import (
	"slices"
	"testing"
)

// gitCommands is searched by bisection: it must stay sorted and hold each
// command once.
func TestGitCommandsSorted(t *testing.T) {
	if !slices.IsSorted(gitCommands[:]) || len(slices.Compact(slices.Clone(gitCommands[:]))) != len(gitCommands) {
		t.Fatal("gitCommands is not sorted or has a command twice")
	}
	for _, c := range []string{"add", "worktree", "write-tree", "lfs", "cherry-pick", "status"} {
		if !isGitCommand(c) {
			t.Errorf("%s is not a git command", c)
		}
	}
	for _, c := range []string{"", "co", "ad", "zzz", "Add"} {
		if isGitCommand(c) {
			t.Errorf("%q is a git command", c)
		}
	}
}
