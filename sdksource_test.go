package pi

import (
	"os/exec"
	"path"
	"strings"
	"testing"
)

// TestSDKComplete checks that the embedded sources hold every package of
// this module that the SDK needs when built for WebAssembly: a missing one
// would only show when an author outside the repository builds.
func TestSDKComplete(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "./sdk-guest")
	cmd.Env = append(cmd.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, f := range SDKModule() {
		have[path.Dir(f.Path)] = true
	}
	for _, p := range strings.Fields(string(out)) {
		rel, ok := strings.CutPrefix(p, "github.com/piwasm/pi/")
		if ok && !have[rel] {
			t.Errorf("the SDK imports %s, which is not embedded (add it to the go:embed line)", p)
		}
	}
	for _, f := range SDKModule() {
		if strings.HasSuffix(f.Path, "_test.go") {
			t.Errorf("test file %s in the SDK", f.Path)
		}
	}
}

func TestSDKVersion(t *testing.T) {
	v := SDKVersion()
	if !strings.HasPrefix(v, "abi1-") || len(v) != len("abi1-")+12 || v != SDKVersion() {
		t.Fatalf("version %q", v)
	}
	var version string
	for _, f := range SDKModule() {
		if f.Path == "VERSION" {
			version = string(f.Data)
		}
	}
	if version != v+"\n" {
		t.Fatalf("VERSION file %q", version)
	}
}
