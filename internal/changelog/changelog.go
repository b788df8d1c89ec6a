package changelog

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/piwasm/pi/internal/atomicfile"
)

// Entry is one version's section.
type Entry struct {
	Version string
	// Body is the whole section, heading included.
	Body string
}

// Parse splits md at its "## [version]" headings (a heading without
// brackets, "## 1.2.0", counts too). Text before the first is dropped.
func Parse(md string) []Entry {
	var out []Entry
	for _, line := range strings.SplitAfter(md, "\n") {
		if v, ok := heading(line); ok {
			out = append(out, Entry{Version: v})
		}
		if len(out) > 0 {
			out[len(out)-1].Body += line
		}
	}
	for i := range out {
		out[i].Body = strings.TrimSpace(out[i].Body)
	}
	return out
}

func heading(line string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "## ")
	if !ok {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	if strings.HasPrefix(rest, "[") {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return "", false
		}
		rest = rest[1:end]
	} else if f := strings.Fields(rest); len(f) > 0 {
		rest = f[0]
	}
	rest = strings.TrimPrefix(rest, "v")
	if _, ok := parse(rest); !ok {
		return "", false
	}
	return rest, true
}

// parse reads "1.2.3" (a "-suffix" is ignored) as three numbers.
func parse(v string) ([3]int, bool) {
	var n [3]int
	v, _, _ = strings.Cut(v, "-")
	parts := strings.Split(v, ".")
	if len(parts) == 0 || len(parts) > 3 {
		return n, false
	}
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 {
			return n, false
		}
		n[i] = x
	}
	return n, true
}

// Compare orders two versions: -1, 0 or 1; ok is false when either is not
// a version.
func Compare(a, b string) (int, bool) {
	x, ok1 := parse(strings.TrimPrefix(a, "v"))
	y, ok2 := parse(strings.TrimPrefix(b, "v"))
	if !ok1 || !ok2 {
		return 0, false
	}
	for i := range x {
		switch {
		case x[i] < y[i]:
			return -1, true
		case x[i] > y[i]:
			return 1, true
		}
	}
	return 0, true
}

// Newer are the entries after since, newest first (as in the file).
func Newer(entries []Entry, since string) []Entry {
	var out []Entry
	for _, e := range entries {
		if c, ok := Compare(e.Version, since); ok && c > 0 {
			out = append(out, e)
		}
	}
	return out
}

// MarkerName is the file in the agent dir that holds the version of pi
// whose changelog was last shown.
const MarkerName = "pi-changelog-version"

// WhatsNew returns the entries a person has not seen yet and records
// current as seen. The first start records the version and shows nothing
// (a fresh install has nothing "new"); an unreadable marker is replaced.
// collapse gives one line instead of the entries.
func WhatsNew(agentDir, md, current string, collapse bool) (string, error) {
	path := filepath.Join(agentDir, MarkerName)
	b, err := os.ReadFile(path)
	last := strings.TrimSpace(string(b))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", save(agentDir, path, current)
	case err != nil:
		return "", err
	}
	if c, ok := Compare(current, last); ok && c <= 0 {
		return "", nil
	}
	if err := save(agentDir, path, current); err != nil {
		return "", err
	}
	if _, ok := parse(last); !ok {
		return "", nil
	}
	news := Newer(Parse(md), last)
	if len(news) == 0 {
		return "", nil
	}
	if collapse {
		return "pi was updated to " + current + " (from " + last + "): /changelog says what changed", nil
	}
	parts := []string{"What's new in pi since " + last + " (/changelog shows every version):"}
	for _, e := range news {
		parts = append(parts, e.Body)
	}
	return strings.Join(parts, "\n\n"), nil
}

func save(agentDir, path, version string) error {
	if err := os.MkdirAll(agentDir, 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, []byte(version+"\n"), 0o644)
}
