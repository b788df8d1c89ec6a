package session

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
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
	return NewPathIn(Dir(agentDir, cwd), id, now)
}

// NewPathIn returns the file name of a new session started at now in dir
// (a sessions directory of its own: settings sessionDir).
func NewPathIn(dir, id string, now time.Time) string {
	stamp := now.UTC().Format("2006-01-02T15-04-05.000Z")
	return filepath.Join(dir, stamp+"_"+id+".jsonl")
}

// Latest returns the most recent session file of cwd, or "" when there is
// none. File names start with a UTC timestamp, so the greatest name is the
// latest; a file whose header names another directory (two directories can
// share a folder name) is passed over.
func Latest(agentDir, cwd string) (string, error) {
	return LatestIn(Dir(agentDir, cwd), cwd)
}

// LatestIn is [Latest] over the sessions in dir.
func LatestIn(dir, cwd string) (string, error) {
	entries, err := os.ReadDir(dir)
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
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	for _, n := range names {
		p := filepath.Join(dir, n)
		if h, err := readHeader(p); err == nil && filepath.Clean(h.Cwd) == filepath.Clean(cwd) {
			return p, nil
		}
	}
	return "", nil
}

// readHeader reads only the first line of a session file.
func readHeader(path string) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, err
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return Header{}, err
	}
	var h Header
	if err := json.Unmarshal(line, &h); err != nil || h.Type != TypeSession {
		return Header{}, fmt.Errorf("%s: not a session file", path)
	}
	return h, nil
}
