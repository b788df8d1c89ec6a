package sandbox

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Confined commands die with pi. The helper gets SIGKILL from the kernel
// when pi dies (PR_SET_PDEATHSIG), and the bash tool kills its process
// group on timeout or abort, but a command can leave the group and the
// session (setsid) and outlive both. pi therefore makes itself a child
// subreaper: whatever its commands leave behind is re-parented to pi
// rather than to init, so it stays among pi's descendants, and
// [KillDescendants] ends all of them when pi exits. (If pi itself is
// killed with SIGKILL it runs no code: the orphans then go to init.)

// AdoptOrphans makes the calling process (pi) the subreaper of its
// descendants. Processes re-parented to pi that exit stay zombies until
// pi exits, which costs a process-table entry each.
func AdoptOrphans() {
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// KillDescendants sends SIGKILL to every descendant of the calling
// process, found through /proc's children lists, all gathered first so
// none escapes by being re-parented while the others die.
func KillDescendants() {
	if !hasChildren() {
		// Most runs (`pi -p` with no command) have started nothing; the
		// walk below reads a directory and a file per thread, ~2% of such
		// a run's CPU.
		return
	}
	var all []int
	seen := map[int]bool{}
	queue := children(os.Getpid())
	for len(queue) > 0 && len(all) < 100000 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		all = append(all, pid)
		queue = append(queue, children(pid)...)
	}
	for _, pid := range all {
		_ = unix.Kill(pid, unix.SIGKILL)
	}
}

// hasChildren reports whether the calling process has any child, living
// or a zombie, started by any of its threads or re-parented to it as the
// subreaper. waitid asks without reaping (WNOWAIT) or waiting (WNOHANG),
// and fails with ECHILD only when there is none. There is then no
// descendant to kill either: pi being the subreaper, a process whose
// parent dies is re-parented to pi, so every descendant has a child of pi
// above it. Any other answer (a child, an error) counts as a child, so
// the full walk runs.
func hasChildren() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WSTOPPED|unix.WCONTINUED|unix.WNOHANG|unix.WNOWAIT|unix.WALL, nil)
	return err != unix.ECHILD
}

// children lists pid's children, from every one of its threads. (It
// lists the task directory and names each children file: a glob would
// also list every thread's directory, which at pi's exit cost more than
// the rest of a short run's tear-down.)
func children(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	tasks, _ := os.ReadDir(dir)
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(dir + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}
