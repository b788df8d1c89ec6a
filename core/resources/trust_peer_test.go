package resources

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The fixture's keys are POSIX paths under /tmp/pifx, which must not exist
// (they are stored as given when they cannot be resolved).
func skipUnlessPosixFixturePaths(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("fixture keys are POSIX paths")
	}
	if _, err := os.Lstat("/tmp/pifx"); err == nil {
		t.Skip("/tmp/pifx exists; fixture paths would resolve differently")
	}
	if real, err := filepath.EvalSymlinks("/tmp"); err != nil || real != "/tmp" {
		t.Skip("/tmp is a symlink here")
	}
}

func TestTrustReadsPeerFile(t *testing.T) {
	skipUnlessPosixFixturePaths(t)
	agent := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "trust", "peer-written.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, map[string]string{filepath.Join(agent, TrustFileName): string(data)})
	cases := []struct {
		dir        string
		found, yes bool
		from       string
	}{
		{"/tmp/pifx/trusted", true, true, "/tmp/pifx/trusted"},
		{"/tmp/pifx/trusted/deep/er", true, true, "/tmp/pifx/trusted"},
		{"/tmp/pifx/denied", true, false, "/tmp/pifx/denied"},
		{"/tmp/pifx/parent/child", true, true, "/tmp/pifx/parent"}, // child entry removed, parent trusts it
		{"/tmp/pifx/parent/no/x", true, false, "/tmp/pifx/parent/no"},
		{"/tmp/pifx", false, false, ""},
		{"/tmp/pifx/trustedX", false, false, ""}, // a prefix is not an ancestor
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		d, found, err := LookupTrust(agent, c.dir)
		if err != nil || found != c.found || d.Trusted != c.yes || d.Dir != c.from {
			t.Errorf("%s: got %+v found=%v err=%v", c.dir, d, found, err)
		}
	}
}

func TestTrustMatchesPeerWriter(t *testing.T) {
	skipUnlessPosixFixturePaths(t)
	agent := filepath.Join(t.TempDir(), "agent")
	yes, no := true, false
	steps := []struct {
		dir string
		d   *bool
	}{
		{"/tmp/pifx/trusted", &yes},
		{"/tmp/pifx/denied", &no},
		{"/tmp/pifx/parent/child", &yes},
		{"/tmp/pifx/parent", &yes},
		{"/tmp/pifx/parent/child", nil},
		{"/tmp/pifx/parent/no", &no},
	}
	for _, s := range steps {
		if err := UpdateTrust(agent, s.dir, s.d); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(filepath.Join(agent, TrustFileName))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "trust", "peer-written.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("pi wrote\n%s\nthe TypeScript pi wrote\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Join(agent, TrustFileName+".lock")); err == nil {
		t.Error("lock left behind")
	}
}

func TestTrustLegacyFileReadAndMigrated(t *testing.T) {
	agent := t.TempDir()
	a, b := t.TempDir(), t.TempDir()
	ka, _ := canonicalDir(a)
	kb, _ := canonicalDir(b)
	path := filepath.Join(agent, TrustFileName)
	legacy := `{"projects": {` + jsonString(ka) + `: true, ` + jsonString(kb) + `: false}}`
	writeTree(t, map[string]string{path: legacy})
	if yes, found, err := StoredTrust(agent, a); !yes || !found || err != nil {
		t.Fatalf("legacy a: %v %v %v", yes, found, err)
	}
	if yes, found, err := StoredTrust(agent, b); yes || !found || err != nil {
		t.Fatalf("legacy b: %v %v %v", yes, found, err)
	}
	c := t.TempDir()
	if err := SaveTrust(agent, c, true); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "projects") {
		t.Fatalf("not migrated:\n%s", data)
	}
	m, legacyForm, err := parseTrustStore(data)
	if err != nil || legacyForm || len(m) != 3 || !*m[ka] || *m[kb] {
		t.Errorf("migrated %v legacy=%v err=%v\n%s", m, legacyForm, err, data)
	}
}

func TestTrustNullEntryDefersToParent(t *testing.T) {
	agent := t.TempDir()
	parent := t.TempDir()
	child := filepath.Join(parent, "child")
	kp, _ := canonicalDir(parent)
	writeTree(t, map[string]string{filepath.Join(agent, TrustFileName): `{` + jsonString(kp) + `: true, ` + jsonString(filepath.Join(kp, "child")) + `: null}`})
	d, found, err := LookupTrust(agent, child)
	if err != nil || !found || !d.Trusted || d.Dir != kp {
		t.Errorf("got %+v %v %v", d, found, err)
	}
	// A save keeps the null the user wrote for other entries.
	if err := SaveTrust(agent, t.TempDir(), false); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(agent, TrustFileName))
	if !strings.Contains(string(data), `"child": null`) && !strings.Contains(string(data), `child": null`) {
		t.Errorf("null entry lost:\n%s", data)
	}
}

func TestTrustForeignOrCorruptFileLeftAlone(t *testing.T) {
	cases := []struct{ name, content, want string }{
		{"corrupt", `{"a": tru`, "invalid trust store"},
		{"array", `[]`, "expected a JSON object"},
		{"string value", `{"/x": "yes"}`, `value for "/x" must be true, false or null`},
		{"nested", `{"projects": {"a": true}, "other": 1}`, `value for "`},
		{"legacy with junk", `{"projects": {"/a": "yes"}}`, `value for "projects"`},
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			agent := t.TempDir()
			path := filepath.Join(agent, TrustFileName)
			writeTree(t, map[string]string{path: c.content})
			err := SaveTrust(agent, t.TempDir(), true)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("err %v, want %q naming %s", err, c.want, path)
			}
			if data, _ := os.ReadFile(path); string(data) != c.content {
				t.Errorf("file changed to %q", data)
			}
			if _, _, err := StoredTrust(agent, t.TempDir()); err == nil {
				t.Error("lookup accepted it")
			}
		})
	}
}

func TestTrustWaitsForPeerLock(t *testing.T) {
	agent := t.TempDir()
	lock := filepath.Join(agent, TrustFileName+".lock")
	if err := os.Mkdir(lock, 0o755); err != nil {
		t.Fatal(err)
	}
	// A fresh lock held by someone else: no write, and it says so.
	_, err := lockTrust(filepath.Join(agent, TrustFileName), 50*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("err %v", err)
	}
	// A stale lock (its holder died) is taken over.
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	if err := SaveTrust(agent, t.TempDir(), true); err != nil {
		t.Fatal(err)
	}
}

func jsonString(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	b.WriteString(strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`))
	b.WriteByte('"')
	return b.String()
}
