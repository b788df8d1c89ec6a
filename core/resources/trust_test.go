package resources

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSaveAndStoredTrust(t *testing.T) {
	agent := filepath.Join(t.TempDir(), "agent") // created by SaveTrust
	a, b := t.TempDir(), t.TempDir()
	if _, found, err := StoredTrust(agent, a); found || err != nil {
		t.Fatalf("before saving: found=%v err=%v", found, err)
	}
	if err := SaveTrust(agent, a, true); err != nil {
		t.Fatal(err)
	}
	if err := SaveTrust(agent, b, false); err != nil {
		t.Fatal(err)
	}
	if trusted, found, err := StoredTrust(agent, a); !trusted || !found || err != nil {
		t.Errorf("a: trusted=%v found=%v err=%v", trusted, found, err)
	}
	if trusted, found, err := StoredTrust(agent, b); trusted || !found || err != nil {
		t.Errorf("b: trusted=%v found=%v err=%v", trusted, found, err)
	}
	// The key is the absolute, cleaned path.
	if trusted, _, _ := StoredTrust(agent, a+string(filepath.Separator)+"."); !trusted {
		t.Errorf("lookup through an unclean path failed")
	}
	// Revoking replaces the decision.
	if err := SaveTrust(agent, a, false); err != nil {
		t.Fatal(err)
	}
	if trusted, _, _ := StoredTrust(agent, a); trusted {
		t.Errorf("decision not replaced")
	}
}

func TestSaveTrustLeavesACorruptFileAlone(t *testing.T) {
	agent := t.TempDir()
	path := filepath.Join(agent, TrustFileName)
	writeTree(t, map[string]string{path: "{not json"})
	if err := SaveTrust(agent, t.TempDir(), true); err == nil {
		t.Fatal("no error")
	}
	if b, _ := os.ReadFile(path); string(b) != "{not json" {
		t.Errorf("file rewritten: %q", b)
	}
}

func TestDecideTrust(t *testing.T) {
	agent := t.TempDir()
	stored := t.TempDir()
	denied := t.TempDir()
	fresh := t.TempDir()
	if err := SaveTrust(agent, stored, true); err != nil {
		t.Fatal(err)
	}
	if err := SaveTrust(agent, denied, false); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		in    trustInput
		want  bool
		diags int
	}{
		{"nothing", trustInput{AgentDir: agent, Project: fresh}, false, 0},
		{"approve", trustInput{AgentDir: agent, Project: fresh, Approve: true}, true, 0},
		{"no-approve beats stored", trustInput{AgentDir: agent, Project: stored, NoApprove: true}, false, 0},
		{"no-approve beats approve", trustInput{AgentDir: agent, Project: fresh, Approve: true, NoApprove: true}, false, 1},
		{"stored yes", trustInput{AgentDir: agent, Project: stored}, true, 0},
		{"stored no beats default", trustInput{AgentDir: agent, Project: denied, Default: ptr(true)}, false, 0},
		{"approve beats stored no", trustInput{AgentDir: agent, Project: denied, Approve: true}, true, 0},
		{"default trusted", trustInput{AgentDir: agent, Project: fresh, Default: ptr(true)}, true, 0},
		{"default untrusted", trustInput{AgentDir: agent, Project: fresh, Default: ptr(false)}, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, diags := decideTrust(c.in)
			if st.Trusted != c.want || st.Reason == "" || len(diags) != c.diags {
				t.Errorf("got %+v %v", st, diags)
			}
		})
	}
	// A corrupt store is reported and ignored.
	bad := t.TempDir()
	writeTree(t, map[string]string{filepath.Join(bad, TrustFileName): "]"})
	st, diags := decideTrust(trustInput{AgentDir: bad, Project: fresh, Default: ptr(true)})
	if !st.Trusted || len(diags) != 1 || diags[0].Kind != KindError {
		t.Errorf("corrupt store: %+v %v", st, diags)
	}
}
