package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/piwasm/pi/core/session"
	"github.com/spf13/pflag"
)

// sessionSummary is one line of `pi session list`.
type sessionSummary struct {
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

// cmdSessionList lists the sessions of the working directory (every
// directory's with --all), newest first.
func (a *app) cmdSessionList(args []string) error {
	fs := pflag.NewFlagSet("session list", pflag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	all := fs.Bool("all", false, "list the sessions of every directory")
	cwdFlag := fs.String("cwd", "", "directory whose sessions to list (default: the current directory)")
	asJSON := fs.Bool("json", false, "print JSON")
	dirFlag := fs.String("session-dir", "", "the sessions directory (default: PI_CODING_AGENT_SESSION_DIR, settings sessionDir, or the agent dir's)")
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return a.helpOr(err, "pi session list [flags]", fs)
		}
		return usagef("session list: %v", err)
	}
	if fs.NArg() > 0 {
		return usagef("session list: unexpected argument %q", fs.Arg(0))
	}
	cwd, err := a.resolveCwd(&common{cwd: *cwdFlag})
	if err != nil {
		return err
	}
	var dirs []string
	l, err := a.load(&common{cwd: cwd})
	if err != nil {
		return err
	}
	own := a.sessionsDir(l, *dirFlag)
	switch {
	case !*all:
		dirs = []string{own}
	case own != session.Dir(l.AgentDir, cwd):
		// A sessions directory of its own (sessionDir) holds every
		// directory's sessions.
		dirs = []string{own}
	default:
		dirs, _ = filepath.Glob(filepath.Join(a.agentDir(), "sessions", "*"))
	}
	list := []sessionSummary{}
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(d, "*.jsonl"))
		for _, f := range files {
			s, ok := summarise(f)
			// Two directories can share a folder name: keep this one's.
			if !ok || (!*all && filepath.Clean(s.Cwd) != filepath.Clean(cwd)) {
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
	if *asJSON {
		return writeJSON(a.stdout, list)
	}
	if len(list) == 0 {
		where := "for " + cwd
		if *all {
			where = "in " + filepath.Join(a.agentDir(), "sessions")
		}
		fmt.Fprintf(a.stdout, "no sessions %s\n", esc(where))
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
		if *all {
			line += "  " + esc(s.Cwd)
		}
		fmt.Fprintln(a.stdout, line)
	}
	return nil
}

// summarise reads one session file; files that are not sessions are passed
// over.
func summarise(path string) (sessionSummary, bool) {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return sessionSummary{}, false
	}
	tr, err := session.Load(path)
	if err != nil || tr.Header.ID == "" {
		return sessionSummary{}, false
	}
	s := sessionSummary{ID: tr.Header.ID, Path: path, Cwd: tr.Header.Cwd, Timestamp: tr.Header.Timestamp, Name: tr.Name(), Branches: max(1, tr.Branches())}
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
