package session

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Dir is where sessions of a working directory live under the agent dir:
// sessions/<cwd with separators turned into dashes>.
func Dir(agentDir, cwd string) string {
	slug := strings.Trim(strings.Map(func(r rune) rune {
		switch r {
		case '/', '\\', ':':
			return '-'
		}
		return r
	}, filepath.Clean(cwd)), "-")
	if slug == "" {
		slug = "root"
	}
	return filepath.Join(agentDir, "sessions", "--"+slug+"--")
}

// NewID returns a random session id.
func NewID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("session id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// NewPath returns the file name of a new session started at now.
func NewPath(agentDir, cwd, id string, now time.Time) string {
	stamp := now.UTC().Format("2006-01-02T15-04-05.000Z")
	return filepath.Join(Dir(agentDir, cwd), stamp+"_"+id+".jsonl")
}

// Latest returns the most recent session file of cwd, or "" when there is
// none. File names start with a UTC timestamp, so the greatest name is the
// latest.
func Latest(agentDir, cwd string) (string, error) {
	entries, err := os.ReadDir(Dir(agentDir, cwd))
	if os.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("list sessions: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".jsonl") {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return "", nil
	}
	sort.Strings(names)
	return filepath.Join(Dir(agentDir, cwd), names[len(names)-1]), nil
}
