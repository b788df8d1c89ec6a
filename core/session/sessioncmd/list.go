package sessioncmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/piwasm/pi/core/session"
)

// Summary is one line of `pi session list`.
type Summary struct {
	ID        string `json:"id"`
	Path      string `json:"path"`
	Cwd       string `json:"cwd"`
	Timestamp string `json:"timestamp"`
	Messages  int    `json:"messages"`
	FirstUser string `json:"firstUserMessage"`
	// Name is the session's display name (/name, --name); Branches the
	// tips of its tree (1 for a session never branched).
	Name     string `json:"name,omitempty"`
	Branches int    `json:"branches"`
}

// List reads the sessions in dirs, newest first; without all, only those
// whose working directory is cwd (two directories can share a folder).
func List(dirs []string, cwd string, all bool) []Summary {
	list := []Summary{}
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(d, "*.jsonl"))
		for _, f := range files {
			s, ok := summarise(f)
			// Two directories can share a folder name: keep this one's.
			if !ok || (!all && filepath.Clean(s.Cwd) != filepath.Clean(cwd)) {
				continue
			}
			list = append(list, s)
		}
	}
	// File names and timestamps are UTC ISO times: newest first.
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].Timestamp != list[j].Timestamp {
			return list[i].Timestamp > list[j].Timestamp
		}
		return list[i].Path > list[j].Path
	})
	return list
}

// WriteList prints list as `pi session list` does (JSON with asJSON); with
// all each line names its directory, and an empty list says where it
// looked (cwd, or allDir with all).
func WriteList(w io.Writer, list []Summary, cwd, allDir string, all, asJSON bool) error {
	if asJSON {
		return writeJSON(w, list)
	}
	if len(list) == 0 {
		where := "for " + cwd
		if all {
			where = "in " + allDir
		}
		fmt.Fprintf(w, "no sessions %s\n", esc(where))
		return nil
	}
	for _, s := range list {
		branches := "1 branch  "
		if s.Branches > 1 {
			branches = fmt.Sprintf("%d branches", s.Branches)
		}
		about := strconv.Quote(truncate(s.FirstUser, 60))
		if s.Name != "" {
			about = "[" + esc(truncate(s.Name, 40)) + "] " + about
		}
		line := fmt.Sprintf("%s  %s  %3d msgs  %s  %s", esc(s.ID), esc(s.Timestamp), s.Messages, branches, about)
		if all {
			line += "  " + esc(s.Cwd)
		}
		fmt.Fprintln(w, line)
	}
	return nil
}

// summarise reads one session file; files that are not sessions are passed
// over.
func summarise(path string) (Summary, bool) {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return Summary{}, false
	}
	tr, err := session.Load(path)
	if err != nil || tr.Header.ID == "" {
		return Summary{}, false
	}
	s := Summary{ID: tr.Header.ID, Path: path, Cwd: tr.Header.Cwd, Timestamp: tr.Header.Timestamp, Name: tr.Name(), Branches: max(1, tr.Branches())}
	for _, e := range tr.Snapshot() {
		if e.Type != session.TypeMessage || e.Message == nil || e.Message.Role == "system" {
			continue
		}
		s.Messages++
		if s.FirstUser == "" && e.Message.Role == "user" {
			s.FirstUser = strings.Join(strings.Fields(e.Message.Content.Text()), " ")
		}
	}
	return s, true
}
